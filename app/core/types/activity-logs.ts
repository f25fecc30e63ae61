// The activity log's lines; db/queries/activity-logs.ts writes and lists them.

export const LOG_LEVELS = ["error", "warning", "success", "info"] as const;

export type LogLevel = (typeof LOG_LEVELS)[number];

export interface ActivityLog {
  id: number;
  type: string;
  level: LogLevel;
  message: string;
  data: Record<string, unknown>;
  createdAt: string;
}

export interface NewActivityLog {
  type: string;
  level: LogLevel;
  message: string;
  data?: Record<string, unknown>;
}
