// One toast at a time (docs/spec/figures.md#defaults-and-limits): a new one replaces the current one; shown 5 s;
// default and destructive variants; swipe right (50 px) to dismiss; F8 focuses the area.
import Alert from "@mui/material/Alert";
import AlertTitle from "@mui/material/AlertTitle";
import Box from "@mui/material/Box";
import { type ReactNode, createContext, useCallback, useContext, useEffect, useRef, useState } from "react";
import type { Toast } from "#app/core/schemas/toast.ts";

export const TOAST_DURATION_MS = 5000;
const SWIPE_THRESHOLD_PX = 50;

type ShownToast = Toast & { key: number };

const ToastContext = createContext<(toast: Toast) => void>(() => {});

export const useToast = () => useContext(ToastContext);

export function ToastProvider({ serverToast, children }: { serverToast: Toast | null; children: ReactNode }) {
  const counter = useRef(0);
  const [current, setCurrent] = useState<ShownToast | null>(serverToast ? { ...serverToast, key: 0 } : null);
  const regionRef = useRef<HTMLDivElement>(null);

  const show = useCallback((toast: Toast) => {
    counter.current += 1;
    setCurrent({ ...toast, key: counter.current });
  }, []);

  // A toast that arrives with a new page (flash cookie) replaces the current one.
  useEffect(() => {
    if (serverToast) show(serverToast);
  }, [serverToast, show]);

  useEffect(() => {
    if (!current) return;
    const timer = setTimeout(() => setCurrent(null), TOAST_DURATION_MS);
    return () => clearTimeout(timer);
  }, [current]);

  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      if (event.key === "F8") regionRef.current?.focus();
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, []);

  return (
    <ToastContext.Provider value={show}>
      {children}
      <Box
        ref={regionRef}
        role="region"
        aria-label="Notifications (F8)"
        tabIndex={-1}
        sx={{
          position: "fixed",
          zIndex: (t) => t.zIndex.snackbar,
          bottom: 16,
          right: 16,
          left: { xs: 16, md: "auto" },
          maxWidth: { md: 420 },
          width: { md: "100%" },
          outline: "none",
        }}
      >
        {current ? <ToastView key={current.key} toast={current} onClose={() => setCurrent(null)} /> : null}
      </Box>
    </ToastContext.Provider>
  );
}

function ToastView({ toast, onClose }: { toast: Toast; onClose: () => void }) {
  const [dx, setDx] = useState(0);
  const start = useRef<number | null>(null);
  const destructive = toast.variant === "destructive";
  return (
    <Alert
      role={destructive ? "alert" : "status"}
      data-testid="toast"
      data-variant={destructive ? "destructive" : "default"}
      severity={destructive ? "error" : "info"}
      variant={destructive ? "filled" : "standard"}
      onClose={onClose}
      onPointerDown={(e) => (start.current = e.clientX)}
      onPointerMove={(e) => start.current !== null && setDx(Math.max(0, e.clientX - start.current))}
      onPointerUp={() => {
        if (dx > SWIPE_THRESHOLD_PX) onClose();
        start.current = null;
        setDx(0);
      }}
      sx={{
        transform: `translateX(${dx}px)`,
        boxShadow: 6,
        bgcolor: destructive ? undefined : "background.paper",
        border: destructive ? undefined : 1,
        borderColor: "divider",
      }}
    >
      <AlertTitle sx={{ mb: toast.description ? 0.5 : 0 }}>{toast.title}</AlertTitle>
      {toast.description}
    </Alert>
  );
}
