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
import { SpriteIcon } from "../ui/plain-icon.tsx";
import { useToast } from "../toaster.tsx";
import { DRAWER_WIDTH, S } from "./app-shell.css.ts";
import { MAIN_NAV, MORE_NAV, type NavItem, isActive, visibleItems } from "./navigation.ts";
import { EmergencyBanner } from "./emergency-banner.tsx";
import { SystemStatusBlock } from "./system-status.tsx";

export const PLATFORM_TITLE = "Futures Trading Automation";

// The navigation's icons (the Material icons' paths) are symbols of one static, cached file,
// app/components/ui/icons.svg (a hashed /build/ asset), each link drawing its own with <use>: their
// ~3.5 KB of paths were in every page's HTML (decision 043). The box is SvgIcon's, as a static
// class (pd-icon), with no styled component per link.
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
              // No data-discover attribute: routes are not discovered lazily here (remix.config.js).
              discover="none"
              className={cls(S.link, active && "Mui-selected")}
              aria-current={active ? "page" : undefined}
              onClick={onNavigate}
            >
              <span className={S.linkIcon}>
                <SpriteIcon id={item.icon} />
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
          {/* Until hydrated (and without JavaScript) a link that shows the docked navigation (#navigation). */}
          <IconButton
            edge="start"
            sx={MENU_BUTTON}
            aria-label="Open navigation"
            {...(hydrated ? {} : { href: "#navigation" })}
            onClick={() => setMobileOpen(true)}
          >
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
        <div className={S.docked} id="navigation" data-testid="sidebar">
          {hydrated ? null : (
            // Back to the page's content (#main): the navigation is no longer the target, so it closes.
            <a href="#main" className={S.backdrop}>
              <span className={S.srOnly}>Close navigation</span>
            </a>
          )}
          <div className={S.drawerPaper}>
            <Sidebar user={user} status={status} />
          </div>
        </div>
      </aside>
      <main className={S.main} id="main">
        <div className={S.toolbarHeight} />
        <EmergencyBanner initial={status} />
        {children}
      </main>
    </div>
  );
}
