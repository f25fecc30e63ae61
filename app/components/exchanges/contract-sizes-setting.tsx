// "Use Coinbase contract sizes" (docs/decisions/025-contracts-and-rounding.md): the
// simulator's products take Coinbase's contract sizes (BTC 0.01, ETH 0.1, SOL 5, XRP 500), so
// paper trading sizes signals and take-profits in whole contracts exactly as live trading
// will. On by default once Coinbase credentials are saved. Admin-only like every setting.
// A normal form post to /exchanges (intent=contract-sizes, value=true|false) answered by a
// redirect with a toast: without JavaScript a button posts the opposite value; with it the
// switch submits the same form.
import Button from "@mui/material/Button";
import FormControlLabel from "@mui/material/FormControlLabel";
import Paper from "@mui/material/Paper";
import Switch from "@mui/material/Switch";
import Typography from "@mui/material/Typography";
import { useRef } from "react";

export interface ContractSizesView {
  /** In force now (the stored choice, else the default). */
  on: boolean;
  /** Whether an admin chose it (false: the default from saved credentials). */
  chosen: boolean;
}

export const CONTRACT_SIZES_LABEL = "Use Coinbase contract sizes";

export function ContractSizesSetting({
  setting,
  isAdmin,
  hydrated,
}: {
  setting: ContractSizesView;
  isAdmin: boolean;
  hydrated: boolean;
}) {
  const form = useRef<HTMLFormElement>(null);
  const next = String(!setting.on);
  return (
    <Paper variant="outlined" sx={{ p: 2, mt: 3 }} data-testid="contract-sizes-setting">
      <Typography variant="h3" component="h2" gutterBottom>
        Simulator
      </Typography>
      <form
        method="post"
        action="/exchanges"
        ref={form}
        style={{ display: "flex", alignItems: "center", gap: 12, flexWrap: "wrap" }}
      >
        <input type="hidden" name="intent" value="contract-sizes" />
        <input type="hidden" name="value" value={next} />
        {hydrated && isAdmin ? (
          <FormControlLabel
            control={
              <Switch
                checked={setting.on}
                onChange={() => form.current?.requestSubmit()}
                slotProps={{ input: { "data-testid": "contract-sizes-switch" } as object }}
              />
            }
            label={CONTRACT_SIZES_LABEL}
          />
        ) : (
          <>
            <FormControlLabel
              control={<Switch checked={setting.on} disabled size="small" />}
              label={CONTRACT_SIZES_LABEL}
            />
            {isAdmin ? (
              <Button
                type="submit"
                size="small"
                variant="outlined"
                aria-label={`${CONTRACT_SIZES_LABEL}: ${setting.on ? "on" : "off"}. Switch ${setting.on ? "off" : "on"}`}
                data-testid="contract-sizes-submit"
              >
                {setting.on ? "Switch off" : "Switch on"}
              </Button>
            ) : null}
          </>
        )}
      </form>
      <Typography variant="body2" color="text.secondary" data-testid="contract-sizes-help">
        {`Paper orders and take-profits are sized in whole Coinbase contracts (BTC 0.01, ETH 0.1, SOL 5, XRP 500), as live trading will be; "contracts" signal amounts count those contracts. Off: the simulator's own increments, one contract = one coin.${setting.chosen ? "" : " Default: on once Coinbase credentials are saved."}`}
      </Typography>
    </Paper>
  );
}
