import {
  AppShell,
  Button,
  Center,
  Group,
  Loader,
  NavLink,
  Stack,
  Text,
  Title,
} from '@mantine/core';
import { Link, Navigate, Route, Routes, useLocation } from 'react-router-dom';
import { isManager, useSession } from './session';
import { useLiveConnected, useLiveUpdates } from './live';
import { SignInPage } from './pages/SignIn';
import { AcceptInvitationPage } from './pages/AcceptInvitation';
import { WebhooksPage } from './pages/Webhooks';
import { SettingsPage } from './pages/Settings';
import { InboxPage } from './pages/Inbox';
import { ContactsPage } from './pages/Contacts';
import { CampaignsPage } from './pages/Campaigns';
import { TemplatesPage } from './pages/Templates';
import { AutomationPage } from './pages/Automation';

const NAV = [
  { to: '/inbox', label: 'Inbox' },
  { to: '/contacts', label: 'Contacts' },
  { to: '/campaigns', label: 'Campaigns' },
  { to: '/templates', label: 'Templates' },
  { to: '/automation', label: 'Automation' },
  { to: '/developer/webhooks', label: 'Developer → Webhooks', managersOnly: true },
  { to: '/settings', label: 'Settings', managersOnly: true },
];

function Shell() {
  const { user, signOut } = useSession();
  const location = useLocation();
  useLiveUpdates();
  const live = useLiveConnected();
  return (
    <AppShell header={{ height: 56 }} navbar={{ width: 230, breakpoint: 0 }} padding="md">
      <AppShell.Header>
        <Group h="100%" px="md" justify="space-between">
          <Text fw={700} size="lg" component="span">
            Switchboard
          </Text>
          <Group gap="sm">
            {/* Mantine's orange.9 is 4.3:1 on white, under the 4.5:1 small text needs; this orange is 6:1. */}
            <Text
              size="xs"
              c={live ? 'teal.9' : '#a63c06'}
              component="span"
              role="status"
              data-testid="live-status"
              data-live={live}
            >
              {live ? '● Live' : '○ Reconnecting… (refreshing every minute)'}
            </Text>
            <Text size="sm" component="span">
              {user?.name} · {user?.role}
            </Text>
            <Button variant="default" size="xs" onClick={() => void signOut()}>
              Sign out
            </Button>
          </Group>
        </Group>
      </AppShell.Header>
      <AppShell.Navbar p="xs" component="nav" aria-label="Main">
        {NAV.filter((item) => !item.managersOnly || isManager(user)).map((item) => (
          <NavLink
            key={item.to}
            component={Link}
            to={item.to}
            label={item.label}
            active={location.pathname.startsWith(item.to)}
            aria-current={location.pathname.startsWith(item.to) ? 'page' : undefined}
          />
        ))}
      </AppShell.Navbar>
      <AppShell.Main>
        <main>
          <Routes>
            <Route path="/inbox" element={<InboxPage />} />
            <Route path="/contacts" element={<ContactsPage />} />
            <Route path="/campaigns" element={<CampaignsPage />} />
            <Route path="/templates" element={<TemplatesPage />} />
            <Route path="/automation" element={<AutomationPage />} />
            <Route
              path="/developer/webhooks"
              element={
                isManager(user) ? <WebhooksPage /> : <NotAllowed page="Developer → Webhooks" />
              }
            />
            <Route
              path="/settings"
              element={isManager(user) ? <SettingsPage /> : <NotAllowed page="Settings" />}
            />
            <Route path="*" element={<Navigate to="/inbox" replace />} />
          </Routes>
        </main>
      </AppShell.Main>
    </AppShell>
  );
}

function NotAllowed({ page }: { page: string }) {
  return (
    <Stack>
      <Title order={1}>{page}</Title>
      <Text role="alert">
        Only the organization's owner and admins can open {page}. Ask one of them for what you need.
      </Text>
    </Stack>
  );
}

export function App() {
  const { user, loading } = useSession();
  const location = useLocation();
  if (location.pathname.startsWith('/accept-invitation')) return <AcceptInvitationPage />;
  if (loading) {
    return (
      <Center h="100vh">
        <Loader aria-label="Loading" />
      </Center>
    );
  }
  if (!user) return <SignInPage />;
  return <Shell />;
}
