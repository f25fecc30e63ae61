import { NotBuiltYet, Screen } from "../screen.tsx";

export function TradeHistoryScreen() {
  return (
    <Screen title="Trade History">
      <NotBuiltYet what="Summary cards, filters by symbol and status, the expandable trades table and the CSV export arrive once orders are placed." />
    </Screen>
  );
}
