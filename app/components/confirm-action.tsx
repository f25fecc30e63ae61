// One confirm button for an operation that cannot be undone or touches many rows (Trading
// Rules: Apply Rules to Existing Positions, Reset Statistics). With JavaScript: the browser's
// confirm, then the API call and a toast. Without: a submit button (of whatever form holds it)
// posting `intent`; the page's action answers with a confirmation panel (ConfirmPanel), whose
// own form posts the intent again with `confirmed=yes`.
import Alert from "@mui/material/Alert";
import AlertTitle from "@mui/material/AlertTitle";
import Button from "@mui/material/Button";
import Stack from "@mui/material/Stack";
import { Link as RemixLink } from "@remix-run/react";
import { type ReactNode, useState } from "react";
import type { Toast } from "#app/core/schemas/toast.ts";
import { errorText } from "#app/utils/api-client.ts";
import { useHydrated } from "#app/utils/use-hydrated.ts";
import { useToast } from "./toaster.tsx";

export interface ConfirmActionProps {
  intent: string;
  label: string;
  busyLabel: string;
  /** The question the confirm dialog (or panel) asks. */
  question: string;
  /** Runs the operation (with JavaScript) and says what happened. */
  run: () => Promise<Toast>;
  /** The failure toast's title and its text when the error has none. */
  failTitle: string;
  failText: string;
  color?: "primary" | "error";
  testId: string;
}

export function ConfirmActionButton({
  intent,
  label,
  busyLabel,
  question,
  run,
  failTitle,
  failText,
  color = "primary",
  testId,
}: ConfirmActionProps) {
  const hydrated = useHydrated();
  const toast = useToast();
  const [busy, setBusy] = useState(false);
  const onClick = async (event: React.MouseEvent) => {
    event.preventDefault();
    if (!window.confirm(question)) return;
    setBusy(true);
    try {
      toast(await run());
    } catch (error) {
      toast({ title: failTitle, description: errorText(error, failText), variant: "destructive" });
    } finally {
      setBusy(false);
    }
  };
  return (
    <Button
      type="submit"
      name="intent"
      value={intent}
      formNoValidate
      variant="outlined"
      color={color}
      onClick={hydrated ? (e) => void onClick(e) : undefined}
      disabled={busy}
      data-testid={testId}
    >
      {busy ? busyLabel : label}
    </Button>
  );
}

/**
 * The no-JavaScript confirmation: the question, Confirm (posts intent + confirmed=yes, or the
 * `confirm` field given, with `fields` as hidden inputs) and Cancel.
 */
export function ConfirmPanel({
  action,
  intent,
  title,
  question,
  confirmLabel,
  cancelHref,
  children,
  confirm = { name: "confirmed", value: "yes" },
  fields = {},
}: {
  action: string;
  intent: string;
  title: string;
  question: string;
  confirmLabel: string;
  cancelHref: string;
  children?: ReactNode;
  confirm?: { name: string; value: string };
  fields?: Record<string, string>;
}) {
  return (
    <Alert severity="warning" sx={{ mb: 3 }} data-testid={`confirm-${intent}`}>
      <AlertTitle>{title}</AlertTitle>
      {question}
      {children}
      <form method="post" action={action}>
        <input type="hidden" name="intent" value={intent} />
        <input type="hidden" name={confirm.name} value={confirm.value} />
        {Object.entries(fields).map(([name, value]) => (
          <input key={name} type="hidden" name={name} value={value} />
        ))}
        <Stack direction="row" spacing={2} sx={{ mt: 1.5 }}>
          <Button type="submit" variant="contained" color="warning" data-testid={`confirm-${intent}-yes`}>
            {confirmLabel}
          </Button>
          <Button component={RemixLink} to={cancelHref} variant="text">
            Cancel
          </Button>
        </Stack>
      </form>
    </Alert>
  );
}
