// Full-screen states before login: the loading screen and 'Initializing...'.
import Box from "@mui/material/Box";
import CircularProgress from "@mui/material/CircularProgress";
import Typography from "@mui/material/Typography";
import { Logo } from "./logo.tsx";

export function FullScreenMessage({ text, testId }: { text: string; testId: string }) {
  return (
    <Box
      data-testid={testId}
      role="status"
      aria-live="polite"
      sx={{
        position: "fixed",
        inset: 0,
        zIndex: (t) => t.zIndex.modal + 1,
        bgcolor: "background.default",
        display: "flex",
        flexDirection: "column",
        alignItems: "center",
        justifyContent: "center",
        gap: 2,
      }}
    >
      <Logo size={48} />
      <CircularProgress size={28} />
      <Typography color="text.secondary">{text}</Typography>
    </Box>
  );
}

export const LoadingScreen = () => <FullScreenMessage text="Loading..." testId="loading-screen" />;
export const InitializingScreen = () => <FullScreenMessage text="Initializing..." testId="initializing-screen" />;
