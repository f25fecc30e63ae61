// The sidebar entries: the main list of docs/spec/screens.md#the-shell first, then the other screens.
export interface NavItem {
  to: string;
  label: string;
  icon: string;
  adminOnly?: boolean;
  /** Other paths that highlight this entry. */
  aliases?: string[];
}

export const MAIN_NAV: NavItem[] = [
  { to: "/", label: "Dashboard", icon: "dashboard", aliases: ["/dashboard"] },
  { to: "/positions", label: "Positions", icon: "positions" },
  { to: "/exchanges", label: "Exchanges", icon: "exchanges" },
  { to: "/webhook", label: "Webhook Config", icon: "webhook", adminOnly: true },
  { to: "/api-settings", label: "API Settings", icon: "api", adminOnly: true },
  { to: "/trading-rules", label: "Trading Rules", icon: "rules", adminOnly: true },
  { to: "/users", label: "Users", icon: "users", adminOnly: true },
  { to: "/history", label: "Trade History", icon: "history", aliases: ["/trade-history", "/trades", "/signals"] },
];

export const MORE_NAV: NavItem[] = [
  // Not in the main list of docs/spec/screens.md#the-shell (which is exact per role): first of the others, every role reads it.
  { to: "/strategies", label: "Strategies", icon: "strategies" },
  { to: "/performance", label: "Performance", icon: "performance" },
  { to: "/replay", label: "Replay", icon: "replay" }, // what-if replay of the alerts (issue 25): reads only, every role
  { to: "/manual-trading", label: "Manual Trading", icon: "manual" },
  { to: "/logs", label: "Activity Logs", icon: "logs" },
  { to: "/market-data", label: "Market Data", icon: "market" },
  { to: "/profiles", label: "Profiles", icon: "profiles" },
  { to: "/reports", label: "Reports", icon: "reports" },
  { to: "/notifications", label: "Notifications", icon: "notifications", adminOnly: true },
  { to: "/account", label: "Account", icon: "account" },
];

export function isActive(item: NavItem, pathname: string): boolean {
  const path = pathname.replace(/\/+$/, "") || "/";
  return [item.to, ...(item.aliases ?? [])].includes(path);
}

export function visibleItems(items: NavItem[], role: string): NavItem[] {
  return items.filter((item) => !item.adminOnly || role === "admin");
}
