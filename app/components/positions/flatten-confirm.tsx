// "Flatten all" and "Stop and flatten" ask first, as a single Close does (issue 23, decision
// 041). With JavaScript: the browser's confirm dialog, then the form posts with confirm=1.
// Without: the form posts without it, the action flattens nothing and answers the page with
// this panel, whose Confirm posts the same intent again with confirm=1.
import { ConfirmPanel } from "#app/components/confirm-action.tsx";

export type FlattenIntent = "flatten" | "emergency-stop-flatten";

export const FLATTEN_QUESTIONS: Record<FlattenIntent, string> = {
  flatten: "Flatten all? Every resting order is cancelled and every open position is closed at market.",
  "emergency-stop-flatten":
    "Stop and flatten? The emergency stop turns on (no new positions until an admin resets it), every resting order is cancelled and every open position is closed at market.",
};

/** The field the confirmed post carries; an action flattens only with it. */
export const FLATTEN_CONFIRMED = { name: "confirm", value: "1" } as const;

/** A submit handler for the flatten buttons with JavaScript: the dialog; cancelling posts nothing. */
export function confirmFlatten(intent: FlattenIntent, event: { preventDefault(): void }): void {
  if (!window.confirm(FLATTEN_QUESTIONS[intent])) event.preventDefault();
}

/** The server-rendered confirmation (no JavaScript), posting to `action` and going back to `cancelHref` on Cancel. */
export function FlattenConfirmPanel({
  intent,
  action,
  cancelHref,
  fields,
}: {
  intent: FlattenIntent;
  action: string;
  cancelHref: string;
  fields?: Record<string, string>;
}) {
  return (
    <ConfirmPanel
      action={action}
      intent={intent}
      title={intent === "flatten" ? "Flatten all?" : "Stop and flatten?"}
      question={FLATTEN_QUESTIONS[intent]}
      confirmLabel={intent === "flatten" ? "Yes, flatten all" : "Yes, stop and flatten"}
      cancelHref={cancelHref}
      confirm={FLATTEN_CONFIRMED}
      fields={fields}
    />
  );
}
