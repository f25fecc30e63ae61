import Box from "@mui/material/Box";
import Typography from "@mui/material/Typography";
import { isRouteErrorResponse, useRouteError } from "@remix-run/react";
import type { ReactNode } from "react";

type StatusHandler = (info: { status: number; message: string }) => ReactNode;

function messageOf(data: unknown, fallback: string): string {
  if (data && typeof data === "object" && "error" in data && typeof (data as any).error === "string")
    return (data as any).error;
  if (typeof data === "string" && data) return data;
  return fallback;
}

export function NotFound() {
  return (
    <Box sx={{ py: 8, textAlign: "center" }}>
      <Typography variant="h1" component="h1" gutterBottom>
        404 Page Not Found
      </Typography>
      <Typography color="text.secondary">The page you asked for does not exist.</Typography>
    </Box>
  );
}

const defaultHandlers: Record<number, StatusHandler> = {
  404: () => <NotFound />,
  403: ({ message }) => (
    <Box sx={{ py: 8, textAlign: "center" }}>
      <Typography variant="h1" component="h1" gutterBottom>
        Access denied
      </Typography>
      <Typography color="text.secondary">{message}. This screen is for administrators.</Typography>
    </Box>
  ),
};

/** One look for every failure; routes pass handlers for the statuses they expect. */
export function GeneralErrorBoundary({ statusHandlers = {} }: { statusHandlers?: Record<number, StatusHandler> }) {
  const error = useRouteError();
  if (isRouteErrorResponse(error)) {
    const handler = statusHandlers[error.status] ?? defaultHandlers[error.status];
    const message = messageOf(error.data, error.statusText || "Something went wrong");
    if (handler) return <>{handler({ status: error.status, message })}</>;
    return (
      <Box sx={{ py: 8, textAlign: "center" }}>
        <Typography variant="h1" component="h1" gutterBottom>
          {error.status} {error.statusText}
        </Typography>
        <Typography color="text.secondary">{message}</Typography>
      </Box>
    );
  }
  if (typeof document !== "undefined") console.error(error);
  return (
    <Box sx={{ py: 8, textAlign: "center" }}>
      <Typography variant="h1" component="h1" gutterBottom>
        Something went wrong
      </Typography>
      <Typography color="text.secondary">An unexpected error occurred. Please try again.</Typography>
    </Box>
  );
}
