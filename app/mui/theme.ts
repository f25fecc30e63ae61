import { createTheme } from "@mui/material/styles";

export const theme = createTheme({
  palette: {
    mode: "dark",
    primary: { main: "#3b82f6" },
    secondary: { main: "#94a3b8" },
    success: { main: "#22c55e" },
    warning: { main: "#f59e0b" },
    error: { main: "#ef4444" },
    background: { default: "#0b1120", paper: "#111827" },
    divider: "rgba(148, 163, 184, 0.16)",
  },
  shape: { borderRadius: 8 },
  typography: {
    fontFamily: 'system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, "Noto Sans", sans-serif',
    h1: { fontSize: "1.75rem", fontWeight: 700 },
    h2: { fontSize: "1.375rem", fontWeight: 600 },
    h3: { fontSize: "1.125rem", fontWeight: 600 },
  },
  components: {
    MuiButton: { defaultProps: { disableElevation: true }, styleOverrides: { root: { textTransform: "none" } } },
    MuiPaper: { styleOverrides: { root: { backgroundImage: "none" } } },
    MuiTooltip: { defaultProps: { enterDelay: 700, enterNextDelay: 300 } },
    // MUI 9 no longer turns Typography's `color="text.secondary"` into a colour; the app uses
    // it for every muted caption, so the theme maps it once.
    MuiTypography: {
      variants: [
        { props: { color: "text.secondary" }, style: ({ theme }) => ({ color: theme.palette.text.secondary }) },
        { props: { color: "text.primary" }, style: ({ theme }) => ({ color: theme.palette.text.primary }) },
        { props: { color: "error" }, style: ({ theme }) => ({ color: theme.palette.error.main }) },
        { props: { color: "primary.light" }, style: ({ theme }) => ({ color: theme.palette.primary.light }) },
      ],
    },
  },
});
