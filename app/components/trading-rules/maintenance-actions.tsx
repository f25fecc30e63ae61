// Apply Rules to Existing Positions and Reset Statistics: each a confirmed action (a browser
// confirmation with JavaScript, the page's confirmation panel without: ?confirm=<intent>).
import Box from "@mui/material/Box";
import Stack from "@mui/material/Stack";
import Typography from "@mui/material/Typography";
import type { Toast } from "#app/core/schemas/toast.ts";
import { apiRequest } from "#app/utils/api-client.ts";
import { useInvalidate } from "#app/utils/use-api-query.tsx";
import { ConfirmActionButton } from "../confirm-action.tsx";

export const APPLY_RULES_CONFIRM =
  "Apply the saved trading rules to all existing open positions? Unsaved changes on this page are not included.";
export const RESET_STATS_CONFIRM =
  "Reset all performance statistics? This permanently deletes every trade, signal, position and activity log.";

/** The intents the page's action confirms before running (no JavaScript: ?confirm=<intent>). */
export const CONFIRM_INTENTS = {
  "apply-rules": {
    title: "Apply Rules to Existing Positions",
    question: APPLY_RULES_CONFIRM,
    confirmLabel: "Apply Rules",
  },
  "reset-stats": { title: "Reset Statistics", question: RESET_STATS_CONFIRM, confirmLabel: "Reset Statistics" },
} as const;
export type ConfirmIntent = keyof typeof CONFIRM_INTENTS;

export function ApplyRulesButton() {
  const invalidate = useInvalidate();
  return (
    <Box sx={{ mt: 1.5 }}>
      <ConfirmActionButton
        intent="apply-rules"
        label="Apply Rules to Existing Positions"
        busyLabel="Applying..."
        question={APPLY_RULES_CONFIRM}
        failTitle="Failed to Apply Rules"
        failText="Failed to apply rules to existing positions"
        testId="apply-rules"
        run={async () => {
          const result = await apiRequest<{ appliedCount?: number; totalPositions?: number }>(
            "POST",
            "/api/positions/apply-rules",
          );
          invalidate("/api/positions", "/api/dashboard/stats");
          return {
            title: "Rules Applied",
            description: appliedText(result.appliedCount ?? 0, result.totalPositions ?? 0),
          };
        }}
      />
    </Box>
  );
}

export const appliedText = (applied: number, total: number) =>
  `Applied the trading rules to ${applied} of ${total} open positions`;
export const RESET_DONE: Toast = {
  title: "Statistics Reset",
  description: "All trades, signals, positions and activity logs have been deleted",
};

export function ResetStatsButton() {
  const invalidate = useInvalidate();
  return (
    <Stack direction="row" spacing={2} useFlexGap sx={{ alignItems: "center", flexWrap: "wrap" }}>
      <ConfirmActionButton
        intent="reset-stats"
        label="Reset Statistics"
        busyLabel="Resetting..."
        question={RESET_STATS_CONFIRM}
        failTitle="Reset Failed"
        failText="Failed to reset statistics"
        color="error"
        testId="reset-stats"
        run={async () => {
          await apiRequest("POST", "/api/reset-stats");
          invalidate("/api/");
          return RESET_DONE;
        }}
      />
      <Typography variant="body2" color="text.secondary">
        Deletes all trades, signals, positions and activity logs.
      </Typography>
    </Stack>
  );
}
