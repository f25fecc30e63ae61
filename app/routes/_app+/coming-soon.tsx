import Chip from "@mui/material/Chip";
import Paper from "@mui/material/Paper";
import Stack from "@mui/material/Stack";
import Typography from "@mui/material/Typography";
import type { LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { GeneralErrorBoundary } from "#app/components/error-boundary.tsx";
import { Screen } from "#app/components/screen.tsx";
import { requireUser } from "#app/services/sessions.server.ts";

export async function loader({ request, context }: LoaderFunctionArgs) {
  await requireUser(request, context);
  return null;
}

export default function Page() {
  return (
    <Screen title="Coming soon">
      <Paper variant="outlined" sx={{ p: 4 }}>
        <Typography variant="h3" component="h2" gutterBottom>
          Perpetual contracts
        </Typography>
        <Stack direction="row" spacing={1} sx={{ flexWrap: "wrap", mb: 2 }} useFlexGap>
          {["BTC", "ETH", "SOL", "XRP"].map((coin) => (
            <Chip key={coin} label={`${coin}-PERP`} color="primary" variant="outlined" />
          ))}
        </Stack>
        <Typography color="text.secondary">24/7 hands-free API automation.</Typography>
      </Paper>
    </Screen>
  );
}

export const meta: MetaFunction = () => [{ title: "Coming soon · PerpDesk" }];

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
