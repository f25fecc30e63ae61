import { NotBuiltYet, Screen } from "../screen.tsx";

export function DashboardScreen() {
  return (
    <Screen title="Dashboard">
      <NotBuiltYet what="The live connection status, the four status cards, performance statistics, the signals panel, the webhook URL, the manual trading form and the activity log arrive with the signal pipeline (webhook, job queue, worker, simulator exchange)." />
    </Screen>
  );
}
