// Before login: the product pitch beside the login or registration card.
import Box from "@mui/material/Box";
import Chip from "@mui/material/Chip";
import Paper from "@mui/material/Paper";
import Stack from "@mui/material/Stack";
import Typography from "@mui/material/Typography";
import type { LoaderFunctionArgs } from "@remix-run/node";
import { Outlet, useNavigation } from "@remix-run/react";
import { InitializingScreen, LoadingScreen } from "#app/components/auth-screens.tsx";
import { Logo } from "#app/components/logo.tsx";
import { requireAnonymous } from "#app/services/sessions.server.ts";

const COMING_SOON = ["BTC", "ETH", "SOL", "XRP"];
const AUTH_PATHS = new Set(["/login", "/register", "/two-factor"]);

export async function loader({ request, context }: LoaderFunctionArgs) {
  await requireAnonymous(request, context);
  return null;
}

export default function AuthLayout() {
  const navigation = useNavigation();
  const target = navigation.location?.pathname;
  // Switching between login and registration shows the loading screen; leaving for the
  // app (after a successful sign-in) shows 'Initializing...' until the session is loaded.
  const transition =
    navigation.state === "loading" && target ? (AUTH_PATHS.has(target) ? "loading" : "initializing") : null;

  return (
    <Box sx={{ minHeight: "100vh", display: "grid", gridTemplateColumns: { xs: "1fr", md: "1.1fr 1fr" } }}>
      {transition === "loading" ? <LoadingScreen /> : null}
      {transition === "initializing" ? <InitializingScreen /> : null}
      <Box
        component="section"
        aria-label="About the product"
        sx={{
          p: { xs: 4, md: 8 },
          display: "flex",
          flexDirection: "column",
          justifyContent: "center",
          background: "linear-gradient(135deg, #0f172a 0%, #1e3a8a 100%)",
        }}
      >
        <Stack direction="row" spacing={1.5} sx={{ alignItems: "center", mb: 4 }}>
          <Logo size={40} />
          <Typography variant="h2" component="p">
            PerpDesk
          </Typography>
        </Stack>
        <Typography variant="h1" component="h1" sx={{ fontSize: { xs: "1.75rem", md: "2.25rem" }, mb: 2 }}>
          Futures trading automation
        </Typography>
        <Typography color="text.secondary" sx={{ mb: 4, maxWidth: 520 }}>
          TradingView alerts become orders on Coinbase perpetual futures, protected by take-profit levels, stop-loss,
          break-even and trailing stops.
        </Typography>
        <Paper variant="outlined" sx={{ p: 3, maxWidth: 520, bgcolor: "rgba(15, 23, 42, 0.6)" }}>
          <Typography variant="overline" color="primary.light">
            Coming soon
          </Typography>
          <Typography variant="h3" component="h2" sx={{ mb: 1.5 }}>
            Perpetual contracts
          </Typography>
          <Stack direction="row" spacing={1} sx={{ flexWrap: "wrap", mb: 2 }} useFlexGap>
            {COMING_SOON.map((coin) => (
              <Chip key={coin} label={`${coin}-PERP`} color="primary" variant="outlined" />
            ))}
          </Stack>
          <Typography color="text.secondary">24/7 hands-free API automation</Typography>
        </Paper>
      </Box>
      <Box sx={{ display: "flex", alignItems: "center", justifyContent: "center", p: { xs: 3, md: 6 } }}>
        <Outlet />
      </Box>
    </Box>
  );
}
