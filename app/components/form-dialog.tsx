// A dialog that is one form posted to its page's action: with JavaScript through a fetcher (the
// action answers JSON), without it as a plain POST; Cancel is then a link back to the page.
// The Profiles and Reports dialogs (docs/spec/screens.md) are drawn by it.
import { type FormMetadata, getFormProps } from "@conform-to/react";
import Button from "@mui/material/Button";
import Dialog from "@mui/material/Dialog";
import DialogActions from "@mui/material/DialogActions";
import DialogContent from "@mui/material/DialogContent";
import DialogTitle from "@mui/material/DialogTitle";
import type { useFetcher } from "@remix-run/react";
import type { ReactNode } from "react";
import { useHydrated } from "#app/utils/use-hydrated.ts";
import { FormError } from "./forms.tsx";

/** `form.id` names the dialog too: `<id>-title` labels it, `<id>-dialog` is its test id. */
export function FormDialog<Schema extends Record<string, unknown>>({
  form,
  title,
  open,
  onClose,
  action,
  fetcher,
  maxWidth,
  submitLabel,
  busyLabel,
  danger = false,
  children,
}: {
  form: FormMetadata<Schema, string[]>;
  title: string;
  open: boolean;
  onClose: () => void;
  /** The page whose action takes the post; Cancel without JavaScript returns to it. */
  action: string;
  fetcher: ReturnType<typeof useFetcher>;
  maxWidth: "xs" | "sm";
  submitLabel: string;
  /** The submit button's text while the post is on its way. */
  busyLabel: string;
  danger?: boolean;
  children: ReactNode;
}) {
  const hydrated = useHydrated();
  const busy = fetcher.state !== "idle";
  return (
    <Dialog
      open={open}
      onClose={onClose}
      disablePortal
      fullWidth
      maxWidth={maxWidth}
      slotProps={{ transition: { appear: false } }}
      aria-labelledby={`${form.id}-title`}
      data-testid={`${form.id}-dialog`}
    >
      <fetcher.Form method="post" action={action} {...getFormProps(form)}>
        <DialogTitle id={`${form.id}-title`}>{title}</DialogTitle>
        <DialogContent>
          <FormError errors={form.errors} />
          {children}
        </DialogContent>
        <DialogActions>
          {hydrated ? <Button onClick={onClose}>Cancel</Button> : <Button href={action}>Cancel</Button>}
          <Button type="submit" variant="contained" color={danger ? "error" : "primary"} disabled={busy}>
            {busy ? busyLabel : submitLabel}
          </Button>
        </DialogActions>
      </fetcher.Form>
    </Dialog>
  );
}
