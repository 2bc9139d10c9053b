import '@mantine/core/styles.css';
import './styles.css';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { Badge, Button, MantineProvider, createTheme } from '@mantine/core';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { BrowserRouter } from 'react-router-dom';
import { App } from './App';
import { SessionProvider } from './session';

const theme = createTheme({
  // Shades dark enough for white text and for text on their light tints (WCAG AA contrast).
  primaryColor: 'blue',
  primaryShade: 8,
  respectReducedMotion: true,
  components: {
    // Solid badges with black or white text, whichever reads better on their colour.
    Badge: Badge.extend({ defaultProps: { variant: 'filled', autoContrast: true } }),
    Button: Button.extend({ defaultProps: { autoContrast: true } }),
  },
  // The system's own fonts: nothing is fetched from elsewhere.
  fontFamily: 'system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif',
});

const queryClient = new QueryClient({
  defaultOptions: { queries: { retry: 1, refetchOnWindowFocus: true } },
});

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <MantineProvider theme={theme}>
      <QueryClientProvider client={queryClient}>
        <BrowserRouter basename="/console">
          <SessionProvider>
            <App />
          </SessionProvider>
        </BrowserRouter>
      </QueryClientProvider>
    </MantineProvider>
  </StrictMode>,
);
