// The activity log's Filter dialog: Type and Level (any or one value each), Clear All, Apply.
import Button from "@mui/material/Button";
import Dialog from "@mui/material/Dialog";
import DialogActions from "@mui/material/DialogActions";
import DialogContent from "@mui/material/DialogContent";
import DialogTitle from "@mui/material/DialogTitle";
import Stack from "@mui/material/Stack";
import TextField from "@mui/material/TextField";
import { useEffect, useState } from "react";
import { LOG_LEVELS, LOG_TYPES, type LogFilters, NO_FILTERS } from "./activity-log-utils.ts";

const label = (value: string) => value.charAt(0).toUpperCase() + value.slice(1);

export function LogFilterDialog({
  open,
  filters,
  onClose,
  onApply,
}: {
  open: boolean;
  filters: LogFilters;
  onClose: () => void;
  onApply: (filters: LogFilters) => void;
}) {
  const [draft, setDraft] = useState<LogFilters>(filters);
  // Each opening starts from the filters in force.
  useEffect(() => {
    if (open) setDraft(filters);
  }, [open, filters]);

  return (
    <Dialog
      open={open}
      onClose={onClose}
      fullWidth
      maxWidth="xs"
      aria-labelledby="activity-log-filter-title"
      data-testid="activity-log-filter-dialog"
    >
      <DialogTitle id="activity-log-filter-title">Filter Activity Logs</DialogTitle>
      <DialogContent>
        <Stack spacing={2} sx={{ pt: 1 }}>
          <TextField
            select
            id="activity-log-filter-type"
            label="Type"
            value={draft.type}
            onChange={(e) => setDraft((d) => ({ ...d, type: e.target.value }))}
            slotProps={{
              select: { native: true },
              inputLabel: { shrink: true },
              htmlInput: { "data-testid": "activity-log-type-select" },
            }}
            fullWidth
          >
            <option value="">All types</option>
            {LOG_TYPES.map((type) => (
              <option key={type} value={type}>
                {label(type)}
              </option>
            ))}
          </TextField>
          <TextField
            select
            id="activity-log-filter-level"
            label="Level"
            value={draft.level}
            onChange={(e) => setDraft((d) => ({ ...d, level: e.target.value }))}
            slotProps={{
              select: { native: true },
              inputLabel: { shrink: true },
              htmlInput: { "data-testid": "activity-log-level-select" },
            }}
            fullWidth
          >
            <option value="">All levels</option>
            {LOG_LEVELS.map((level) => (
              <option key={level} value={level}>
                {label(level)}
              </option>
            ))}
          </TextField>
        </Stack>
      </DialogContent>
      <DialogActions>
        <Button color="inherit" onClick={() => onApply(NO_FILTERS)} data-testid="activity-log-clear-all">
          Clear All
        </Button>
        <Button variant="contained" onClick={() => onApply(draft)} data-testid="activity-log-apply">
          Apply
        </Button>
      </DialogActions>
    </Dialog>
  );
}
