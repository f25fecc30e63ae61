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
