// The one copy-to-clipboard of the app (Webhook Config, the dashboard's webhook box, invites):
// copies on a click and says so with a toast, or says to copy by hand.
import { copyText } from "#app/utils/copy-text.ts";
import { useToast } from "./toaster.tsx";

/** `copy(text, "Webhook URL")` toasts "Webhook URL copied to the clipboard". */
export function useCopy() {
  const toast = useToast();
  return async (text: string, what: string) => {
    if (await copyText(text)) toast({ title: "Copied", description: `${what} copied to the clipboard` });
    else
      toast({
        title: "Copy failed",
        description: `Select the ${what.toLowerCase()} and copy it by hand`,
        variant: "destructive",
      });
  };
}
