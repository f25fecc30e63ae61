import AccountBalanceIcon from "@mui/icons-material/AccountBalance";
import ArticleIcon from "@mui/icons-material/Article";
import AssessmentIcon from "@mui/icons-material/Assessment";
import CandlestickChartIcon from "@mui/icons-material/CandlestickChart";
import DashboardIcon from "@mui/icons-material/Dashboard";
import HistoryIcon from "@mui/icons-material/History";
import KeyIcon from "@mui/icons-material/Key";
import MenuIcon from "@mui/icons-material/Menu";
import PeopleIcon from "@mui/icons-material/People";
import RuleIcon from "@mui/icons-material/Rule";
import ShowChartIcon from "@mui/icons-material/ShowChart";
import SwapHorizIcon from "@mui/icons-material/SwapHoriz";
import TouchAppIcon from "@mui/icons-material/TouchApp";
import WebhookIcon from "@mui/icons-material/Webhook";
import AppBar from "@mui/material/AppBar";
import Box from "@mui/material/Box";
import Button from "@mui/material/Button";
import Chip from "@mui/material/Chip";
import Divider from "@mui/material/Divider";
import Drawer from "@mui/material/Drawer";
import IconButton from "@mui/material/IconButton";
import List from "@mui/material/List";
import ListItemButton from "@mui/material/ListItemButton";
import ListItemIcon from "@mui/material/ListItemIcon";
import ListItemText from "@mui/material/ListItemText";
import ListSubheader from "@mui/material/ListSubheader";
import Stack from "@mui/material/Stack";
import Toolbar from "@mui/material/Toolbar";
import Typography from "@mui/material/Typography";
import { Link, useFetcher, useLocation } from "@remix-run/react";
import { type ReactNode, useEffect, useRef, useState } from "react";
import type { SystemStatusEntry } from "#app/core/system-status.ts";
import { Logo } from "../logo.tsx";
import { useToast } from "../toaster.tsx";
import { MAIN_NAV, MORE_NAV, type NavItem, isActive, visibleItems } from "./navigation.ts";
import { SystemStatusBlock } from "./system-status.tsx";

export const DRAWER_WIDTH = 248;
export const PLATFORM_TITLE = "Futures Trading Automation";

const ICONS: Record<string, ReactNode> = {
  dashboard: <DashboardIcon />,
  positions: <ShowChartIcon />,
  exchanges: <SwapHorizIcon />,
  webhook: <WebhookIcon />,
  api: <KeyIcon />,
  rules: <RuleIcon />,
  history: <HistoryIcon />,
  manual: <TouchAppIcon />,
  logs: <ArticleIcon />,
  market: <CandlestickChartIcon />,
  profiles: <PeopleIcon />,
  reports: <AssessmentIcon />,
  balance: <AccountBalanceIcon />,
};

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
          <ListItemButton
            key={item.to}
            component={Link}
            to={item.to}
            prefetch="intent"
            selected={active}
            aria-current={active ? "page" : undefined}
            onClick={onNavigate}
            sx={{ borderRadius: 1, mx: 1, mb: 0.25 }}
          >
            <ListItemIcon sx={{ minWidth: 36 }}>{ICONS[item.icon]}</ListItemIcon>
            <ListItemText primary={item.label} />
          </ListItemButton>
        );
      })}
    </>
  );
}

function Sidebar({ user, status, onNavigate }: { user: ShellUser; status: SystemStatusEntry[]; onNavigate?: () => void }) {
  const { pathname } = useLocation();
  return (
    <Box sx={{ display: "flex", flexDirection: "column", height: "100%" }}>
      <Stack direction="row" spacing={1.5} sx={{ alignItems: "center", px: 2.5, height: 64 }}>
        <Logo size={32} />
        <Typography variant="h3" component="p">
          PerpDesk
        </Typography>
      </Stack>
      <Divider />
      <Box component="nav" aria-label="Main navigation" sx={{ flex: 1, overflowY: "auto", py: 1 }}>
        <List dense disablePadding>
          <NavList items={visibleItems(MAIN_NAV, user.role)} pathname={pathname} onNavigate={onNavigate} />
        </List>
        <List
          dense
          disablePadding
          subheader={
            <ListSubheader disableSticky sx={{ bgcolor: "transparent", lineHeight: "32px", mt: 1 }}>
              More
            </ListSubheader>
          }
        >
          <NavList items={visibleItems(MORE_NAV, user.role)} pathname={pathname} onNavigate={onNavigate} />
        </List>
      </Box>
      <SystemStatusBlock initial={status} />
    </Box>
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

export function AppShell({ user, status, children }: { user: ShellUser; status: SystemStatusEntry[]; children: ReactNode }) {
  const [mobileOpen, setMobileOpen] = useState(false);
  return (
    <Box sx={{ display: "flex", minHeight: "100vh" }}>
      <AppBar
        position="fixed"
        color="inherit"
        elevation={0}
        sx={{ width: { md: `calc(100% - ${DRAWER_WIDTH}px)` }, ml: { md: `${DRAWER_WIDTH}px` }, borderBottom: 1, borderColor: "divider", bgcolor: "background.paper" }}
      >
        <Toolbar sx={{ gap: 1.5 }}>
          <IconButton edge="start" aria-label="Open navigation" onClick={() => setMobileOpen(true)} sx={{ display: { md: "none" } }}>
            <MenuIcon />
          </IconButton>
          <Box sx={{ display: { md: "none" } }}>
            <Logo size={28} />
          </Box>
          <Typography variant="h3" component="p" noWrap sx={{ flex: 1 }} data-testid="platform-title">
            {PLATFORM_TITLE}
          </Typography>
          <Stack sx={{ alignItems: "center" }} direction="row" spacing={1}>
            <Typography data-testid="header-username" sx={{ display: { xs: "none", sm: "block" } }}>
              {user.username}
            </Typography>
            {user.role === "admin" ? <Chip label="admin" size="small" color="primary" variant="outlined" /> : null}
          </Stack>
          <LogoutButton />
        </Toolbar>
      </AppBar>
      <Box component="aside" sx={{ width: { md: DRAWER_WIDTH }, flexShrink: { md: 0 } }}>
        <Drawer
          variant="temporary"
          open={mobileOpen}
          onClose={() => setMobileOpen(false)}
          ModalProps={{ keepMounted: false }}
          sx={{ display: { xs: "block", md: "none" }, "& .MuiDrawer-paper": { width: DRAWER_WIDTH } }}
        >
          <Sidebar user={user} status={status} onNavigate={() => setMobileOpen(false)} />
        </Drawer>
        <Drawer
          variant="permanent"
          open
          data-testid="sidebar"
          sx={{ display: { xs: "none", md: "block" }, "& .MuiDrawer-paper": { width: DRAWER_WIDTH, boxSizing: "border-box" } }}
        >
          <Sidebar user={user} status={status} />
        </Drawer>
      </Box>
      <Box component="main" sx={{ flex: 1, minWidth: 0, p: { xs: 2, md: 3 } }}>
        <Toolbar />
        {children}
      </Box>
    </Box>
  );
}
