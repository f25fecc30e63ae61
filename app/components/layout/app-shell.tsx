// The shell around every signed-in screen: header, sidebar and the status block. Its widgets
// are MUI's (Button, Chip, IconButton, the icons, the phone-sized temporary Drawer, which
// renders nothing until opened); the frame and the navigation links are plain elements with
// static layout classes (./app-shell.css.ts) rather than an AppBar, a docked Drawer and a List
// of ListItemButtons: it is on every page, and ~60 styled components more per server render
// would cost every page (decision 043).
import Button from "@mui/material/Button";
import Chip from "@mui/material/Chip";
import Drawer from "@mui/material/Drawer";
import IconButton from "@mui/material/IconButton";
import SvgIcon from "@mui/material/SvgIcon";
import Typography from "@mui/material/Typography";
import { Link, useFetcher, useLocation } from "@remix-run/react";
import { type ReactNode, useEffect, useRef, useState } from "react";
import type { SystemStatusEntry } from "#app/core/system-status.ts";
import { useHydrated } from "#app/utils/use-hydrated.ts";
import { Logo } from "../logo.tsx";
import { cls } from "../ui/cls.ts";
import { PathIcon } from "../ui/plain-icon.tsx";
import { useToast } from "../toaster.tsx";
import { DRAWER_WIDTH, S } from "./app-shell.css.ts";
import { MAIN_NAV, MORE_NAV, type NavItem, isActive, visibleItems } from "./navigation.ts";
import { EmergencyBanner } from "./emergency-banner.tsx";
import { SystemStatusBlock } from "./system-status.tsx";

export const PLATFORM_TITLE = "Futures Trading Automation";

// The Material icons' paths (what @mui/icons-material draws for each entry), drawn as plain SVG
// (PathIcon: SvgIcon's rules as a static class, no styled component per link; decision 043).
const ICONS: Record<string, string> = {
  dashboard: "M3 13h8V3H3zm0 8h8v-6H3zm10 0h8V11h-8zm0-18v6h8V3z",
  positions: "m3.5 18.49 6-6.01 4 4L22 6.92l-1.41-1.41-7.09 7.97-4-4L2 16.99z",
  exchanges: "M6.99 11 3 15l3.99 4v-3H14v-2H6.99zM21 9l-3.99-4v3H10v2h7.01v3z",
  webhook:
    "M10 15h5.88c.27-.31.67-.5 1.12-.5.83 0 1.5.67 1.5 1.5s-.67 1.5-1.5 1.5c-.44 0-.84-.19-1.12-.5H11.9c-.46 2.28-2.48 4-4.9 4-2.76 0-5-2.24-5-5 0-2.42 1.72-4.44 4-4.9v2.07c-1.16.41-2 1.53-2 2.83 0 1.65 1.35 3 3 3s3-1.35 3-3zm2.5-11c1.65 0 3 1.35 3 3h2c0-2.76-2.24-5-5-5s-5 2.24-5 5c0 1.43.6 2.71 1.55 3.62l-2.35 3.9c-.68.14-1.2.75-1.2 1.48 0 .83.67 1.5 1.5 1.5s1.5-.67 1.5-1.5c0-.16-.02-.31-.07-.45l3.38-5.63C10.49 9.61 9.5 8.42 9.5 7c0-1.65 1.35-3 3-3m4.5 9c-.64 0-1.23.2-1.72.54l-3.05-5.07C11.53 8.35 11 7.74 11 7c0-.83.67-1.5 1.5-1.5S14 6.17 14 7c0 .15-.02.29-.06.43l2.19 3.65c.28-.05.57-.08.87-.08 2.76 0 5 2.24 5 5s-2.24 5-5 5c-1.85 0-3.47-1.01-4.33-2.5h2.67c.48.32 1.05.5 1.66.5 1.65 0 3-1.35 3-3s-1.35-3-3-3",
  api: "M21 10h-8.35C11.83 7.67 9.61 6 7 6c-3.31 0-6 2.69-6 6s2.69 6 6 6c2.61 0 4.83-1.67 5.65-4H13l2 2 2-2 2 2 4-4.04zM7 15c-1.65 0-3-1.35-3-3s1.35-3 3-3 3 1.35 3 3-1.35 3-3 3",
  performance:
    "M23 8c0 1.1-.9 2-2 2-.18 0-.35-.02-.51-.07l-3.56 3.55c.05.16.07.34.07.52 0 1.1-.9 2-2 2s-2-.9-2-2c0-.18.02-.36.07-.52l-2.55-2.55c-.16.05-.34.07-.52.07s-.36-.02-.52-.07l-4.55 4.56c.05.16.07.33.07.51 0 1.1-.9 2-2 2s-2-.9-2-2 .9-2 2-2c.18 0 .35.02.51.07l4.56-4.55C8.02 9.36 8 9.18 8 9c0-1.1.9-2 2-2s2 .9 2 2c0 .18-.02.36-.07.52l2.55 2.55c.16-.05.34-.07.52-.07s.36.02.52.07l3.55-3.56C19.02 8.35 19 8.18 19 8c0-1.1.9-2 2-2s2 .9 2 2",
  strategies: "M22 11V3h-7v3H9V3H2v8h7V8h2v10h4v3h7v-8h-7v3h-2V8h2v3z",
  replay: "M12 5V1L7 6l5 5V7c3.31 0 6 2.69 6 6s-2.69 6-6 6-6-2.69-6-6H4c0 4.42 3.58 8 8 8s8-3.58 8-8-3.58-8-8-8",
  rules:
    "M16.54 11 13 7.46l1.41-1.41 2.12 2.12 4.24-4.24 1.41 1.41zM11 7H2v2h9zm10 6.41L19.59 12 17 14.59 14.41 12 13 13.41 15.59 16 13 18.59 14.41 20 17 17.41 19.59 20 21 18.59 18.41 16zM11 15H2v2h9z",
  history:
    "M13 3c-4.97 0-9 4.03-9 9H1l3.89 3.89.07.14L9 12H6c0-3.87 3.13-7 7-7s7 3.13 7 7-3.13 7-7 7c-1.93 0-3.68-.79-4.94-2.06l-1.42 1.42C8.27 19.99 10.51 21 13 21c4.97 0 9-4.03 9-9s-4.03-9-9-9m-1 5v5l4.28 2.54.72-1.21-3.5-2.08V8z",
  manual:
    "M9 11.24V7.5C9 6.12 10.12 5 11.5 5S14 6.12 14 7.5v3.74c1.21-.81 2-2.18 2-3.74C16 5.01 13.99 3 11.5 3S7 5.01 7 7.5c0 1.56.79 2.93 2 3.74m9.84 4.63-4.54-2.26c-.17-.07-.35-.11-.54-.11H13v-6c0-.83-.67-1.5-1.5-1.5S10 6.67 10 7.5v10.74c-3.6-.76-3.54-.75-3.67-.75-.31 0-.59.13-.79.33l-.79.8 4.94 4.94c.27.27.65.44 1.06.44h6.79c.75 0 1.33-.55 1.44-1.28l.75-5.27c.01-.07.02-.14.02-.2 0-.62-.38-1.16-.91-1.38",
  logs: "M19 3H5c-1.1 0-2 .9-2 2v14c0 1.1.9 2 2 2h14c1.1 0 2-.9 2-2V5c0-1.1-.9-2-2-2m-5 14H7v-2h7zm3-4H7v-2h10zm0-4H7V7h10z",
  market: "M9 4H7v2H5v12h2v2h2v-2h2V6H9zm10 4h-2V4h-2v4h-2v7h2v5h2v-5h2z",
  profiles:
    "M16 11c1.66 0 2.99-1.34 2.99-3S17.66 5 16 5s-3 1.34-3 3 1.34 3 3 3m-8 0c1.66 0 2.99-1.34 2.99-3S9.66 5 8 5 5 6.34 5 8s1.34 3 3 3m0 2c-2.33 0-7 1.17-7 3.5V19h14v-2.5c0-2.33-4.67-3.5-7-3.5m8 0c-.29 0-.62.02-.97.05 1.16.84 1.97 1.97 1.97 3.45V19h6v-2.5c0-2.33-4.67-3.5-7-3.5",
  account:
    "M18 8h-1V6c0-2.76-2.24-5-5-5S7 3.24 7 6v2H6c-1.1 0-2 .9-2 2v10c0 1.1.9 2 2 2h12c1.1 0 2-.9 2-2V10c0-1.1-.9-2-2-2m-6 9c-1.1 0-2-.9-2-2s.9-2 2-2 2 .9 2 2-.9 2-2 2m3.1-9H8.9V6c0-1.71 1.39-3.1 3.1-3.1s3.1 1.39 3.1 3.1z",
  users: "M12 12c2.21 0 4-1.79 4-4s-1.79-4-4-4-4 1.79-4 4 1.79 4 4 4m0 2c-2.67 0-8 1.34-8 4v2h16v-2c0-2.66-5.33-4-8-4",
  notifications:
    "M12 22c1.1 0 2-.9 2-2h-4c0 1.1.89 2 2 2m6-6v-5c0-3.07-1.64-5.64-4.5-6.32V4c0-.83-.67-1.5-1.5-1.5s-1.5.67-1.5 1.5v.68C7.63 5.36 6 7.92 6 11v5l-2 2v1h16v-1z",
  reports:
    "M19 3H5c-1.1 0-2 .9-2 2v14c0 1.1.9 2 2 2h14c1.1 0 2-.9 2-2V5c0-1.1-.9-2-2-2M9 17H7v-7h2zm4 0h-2V7h2zm4 0h-2v-4h2z",
};
const MENU_ICON = "M3 18h18v-2H3zm0-5h18v-2H3zm0-7v2h18V6z";

/** The menu button shows on phone-sized screens only. */
const MENU_BUTTON = { display: { md: "none" } } as const;

interface ShellUser {
  username: string;
  role: string;
}

function NavList({ items, pathname, onNavigate }: { items: NavItem[]; pathname: string; onNavigate?: () => void }) {
  return (
    <>
      {items.map((item) => {
        const active = isActive(item, pathname);
        return (
          <li key={item.to}>
            <Link
              to={item.to}
              prefetch="intent"
              className={cls(S.link, active && "Mui-selected")}
              aria-current={active ? "page" : undefined}
              onClick={onNavigate}
            >
              <span className={S.linkIcon}>
                <PathIcon>
                  <path d={ICONS[item.icon] ?? ""} />
                </PathIcon>
              </span>
              <span className={cls(S.linkText, "pd-body2")}>{item.label}</span>
            </Link>
          </li>
        );
      })}
    </>
  );
}

function Sidebar({
  user,
  status,
  onNavigate,
}: {
  user: ShellUser;
  status: SystemStatusEntry[];
  onNavigate?: () => void;
}) {
  const { pathname } = useLocation();
  return (
    <div className={S.sidebar}>
      <div className={S.brand}>
        <Logo size={32} />
        <Typography variant="h3">PerpDesk</Typography>
      </div>
      <hr className={S.divider} />
      <nav aria-label="Main navigation" className={S.nav}>
        <ul className={S.list}>
          <NavList items={visibleItems(MAIN_NAV, user.role)} pathname={pathname} onNavigate={onNavigate} />
        </ul>
        <ul className={S.list}>
          <li className={S.subheader}>More</li>
          <NavList items={visibleItems(MORE_NAV, user.role)} pathname={pathname} onNavigate={onNavigate} />
        </ul>
      </nav>
      <SystemStatusBlock initial={status} />
    </div>
  );
}

function LogoutButton() {
  const fetcher = useFetcher({ key: "logout" });
  const toast = useToast();
  const submitted = useRef(false);
  const busy = fetcher.state !== "idle";
  useEffect(() => {
    if (fetcher.state === "submitting") submitted.current = true;
    // A successful logout navigates away; coming back to idle here means it failed.
    if (fetcher.state === "idle" && submitted.current) {
      submitted.current = false;
      const data = fetcher.data as { error?: string } | undefined;
      toast({ title: "Logout Error", description: data?.error ?? "Failed to logout", variant: "destructive" });
    }
  }, [fetcher.state, fetcher.data, toast]);
  return (
    <fetcher.Form method="post" action="/logout">
      <Button type="submit" variant="outlined" color="inherit" size="small" disabled={busy}>
        {busy ? "Logging out..." : "Logout"}
      </Button>
    </fetcher.Form>
  );
}

export function AppShell({
  user,
  status,
  children,
}: {
  user: ShellUser;
  status: SystemStatusEntry[];
  children: ReactNode;
}) {
  const [mobileOpen, setMobileOpen] = useState(false);
  // The phone-sized Drawer renders nothing while closed, but its styled root still ran emotion's
  // serialization (its responsive sx) on every server render: it is mounted once hydrated.
  const hydrated = useHydrated();
  return (
    <div className={S.root}>
      <header className={S.bar}>
        <div className={cls(S.toolbar, S.toolbarHeight)}>
          <IconButton edge="start" sx={MENU_BUTTON} aria-label="Open navigation" onClick={() => setMobileOpen(true)}>
            <SvgIcon>
              <path d={MENU_ICON} />
            </SvgIcon>
          </IconButton>
          <div className={S.phoneOnly}>
            <Logo size={28} />
          </div>
          <Typography variant="h3" noWrap className={S.title} data-testid="platform-title">
            {PLATFORM_TITLE}
          </Typography>
          <div className={S.user}>
            <Typography className={S.username} data-testid="header-username">
              {user.username}
            </Typography>
            {user.role === "admin" ? <Chip size="small" label="admin" color="primary" variant="outlined" /> : null}
          </div>
          <LogoutButton />
        </div>
      </header>
      <aside className={S.aside}>
        {hydrated ? (
          <Drawer
            variant="temporary"
            open={mobileOpen}
            onClose={() => setMobileOpen(false)}
            ModalProps={{ keepMounted: false }}
            sx={{ display: { xs: "block", md: "none" }, "& .MuiDrawer-paper": { width: DRAWER_WIDTH } }}
          >
            <Sidebar user={user} status={status} onNavigate={() => setMobileOpen(false)} />
          </Drawer>
        ) : null}
        <div className={S.docked} data-testid="sidebar">
          <div className={S.drawerPaper}>
            <Sidebar user={user} status={status} />
          </div>
        </div>
      </aside>
      <main className={S.main}>
        <div className={S.toolbarHeight} />
        <EmergencyBanner initial={status} />
        {children}
      </main>
    </div>
  );
}
