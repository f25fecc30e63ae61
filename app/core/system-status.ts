// System status entries (docs/spec/api.md#shapes) and the overall rule of screens.md#states, shared by server and UI.
export type ComponentStatus = "online" | "warning" | "error";

export interface SystemStatusEntry {
  component: string;
  status: ComponentStatus;
  message: string;
}

/** All online gives online; any warning gives warning; otherwise error (docs/spec/screens.md#states). */
export function overallStatus(entries: { status: string }[]): ComponentStatus {
  if (entries.length > 0 && entries.every((e) => e.status === "online")) return "online";
  if (entries.some((e) => e.status === "warning")) return "warning";
  return "error";
}

export const STATUS_TEXT: Record<ComponentStatus, { title: string; detail: string }> = {
  online: { title: "System Online", detail: "All services running" },
  warning: { title: "System Warning", detail: "Check system status" },
  error: { title: "System Error", detail: "Check system status" },
};

/**
 * The Webhook Status card (issue 25): "online", "warning" (a missed heartbeat: alerts are
 * still accepted, as /api/health and the sidebar say) or "offline" (anything else), with the
 * card's colour.
 */
export function webhookCard(entry: { status: string } | null | undefined): {
  value: "online" | "warning" | "offline";
  status: "success" | "warning" | "error";
} {
  if (entry?.status === "online") return { value: "online", status: "success" };
  if (entry?.status === "warning") return { value: "warning", status: "warning" };
  return { value: "offline", status: "error" };
}
