/**
 * The app's frame: the conversation list (Sidebar) and the page links in a column that is a drawer on narrow
 * screens, opened by "Menu" and closed by choosing a page, Escape or a click on the backdrop; the page; notices.
 */
import { useAppReady } from './ready';
import { lazy, Suspense, useEffect, useRef } from 'react';
import { Gift, Images, Library, Settings, Wallet } from './components/first-page-icons';
import { useSnapshot } from 'valtio';
import { Sidebar } from './components/Sidebar';
import { ConversationPage } from './components/ConversationPage';
import { Notifications } from './components/Notifications';
import { AudioPlayerBar } from './speech/AudioPlayerGate';
import { ToolSplit } from './components/ToolSplit';
import { PageLink } from './components/Link';
import { ErrorBoundary } from './components/ErrorBoundary';
import { useQuery } from './engine';
import { homeTarget, matchRoute, navigate, usePath } from './router';
import { view } from './state';
import { useTheme } from './theme';
import { UpdatesLink } from './account/UpdatesLink';
import { media } from './media/media-state';
import { ConsentBanner, InstallBanner, RecoveryPrompt } from './account/banner-gates';
import { frameAttributes, PageLinksToggle, ShowSidebarButton } from './account/layout';
import { useConnectivityNotices } from './account/connectivity';
import { useAnalytics } from './account/use-analytics';

// Every page but the conversation, the image viewer and the developer tools are lazy chunks, loaded when opened
// (docs/benchmarks.md, "cold start"): the first page's script carries the frame and the conversation only.
const InspectorPage = lazy(() => import('./inspector/InspectorPage'));
const WalletPage = lazy(() => import('./components/WalletPage').then((m) => ({ default: m.WalletPage })));
const SettingsPage = lazy(() => import('./components/SettingsPage').then((m) => ({ default: m.SettingsPage })));
const GalleryPage = lazy(() => import('./media/GalleryPage').then((m) => ({ default: m.GalleryPage })));
const ImageViewer = lazy(() => import('./media/ImageViewer').then((m) => ({ default: m.ImageViewer })));
const InvitationsPage = lazy(() => import('./components/InvitationsPage').then((m) => ({ default: m.InvitationsPage })));
const LibraryPage = lazy(() => import('./components/LibraryPage').then((m) => ({ default: m.LibraryPage })));
const UpdatesPage = lazy(() => import('./account/UpdatesPage').then((m) => ({ default: m.UpdatesPage })));

/** A lazy page's place while its chunk loads: empty, filling the page's area, so nothing moves when it arrives. */
const pageLoading = <div className="page-loading" aria-busy="true" />;

/** The Inspector's keyboard shortcut: Ctrl+Alt+I. */
export function isInspectorShortcut(e: Pick<KeyboardEvent, 'ctrlKey' | 'altKey' | 'metaKey' | 'shiftKey' | 'code'>): boolean {
  return e.ctrlKey && e.altKey && !e.metaKey && !e.shiftKey && e.code === 'KeyI';
}

export function App() {
  const path = usePath();
  const route = matchRoute(path);
  const { drawerOpen } = useSnapshot(view);
  const ready = useAppReady();
  const { viewer } = useSnapshot(media);
  const preferences = useQuery({ kind: 'preferences' });
  const menuButton = useRef<HTMLButtonElement>(null);
  const drawer = useRef<HTMLDivElement>(null);
  useTheme(preferences?.theme);
  useConnectivityNotices();
  useAnalytics(route.name);

  useEffect(() => {
    if (route.name === 'home') navigate(homeTarget(path), { replace: true });
  }, [route.name, path]);

  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (!isInspectorShortcut(e)) return;
      e.preventDefault();
      navigate('/inspector');
    };
    document.addEventListener('keydown', onKey);
    return () => document.removeEventListener('keydown', onKey);
  }, []);

  // Choosing a conversation or a page closes the drawer.
  useEffect(() => {
    view.drawerOpen = false;
  }, [path]);

  useEffect(() => {
    if (!drawerOpen) return;
    // Focus moves into the drawer so that the keyboard and screen readers land in the list just opened.
    drawer.current?.querySelector<HTMLElement>('a, button, input')?.focus();
    const onKey = (e: KeyboardEvent) => {
      if (e.key !== 'Escape') return;
      e.preventDefault();
      closeDrawer();
    };
    document.addEventListener('keydown', onKey);
    return () => document.removeEventListener('keydown', onKey);
  }, [drawerOpen]);

  function closeDrawer() {
    view.drawerOpen = false;
    menuButton.current?.focus();
  }

  return (
    // "Show thinking" off hides every reply's reasoning block (styles/layout.css), without touching each message.
    <div className="app" data-route={route.name} data-drawer={drawerOpen ? 'open' : 'closed'} data-show-thinking={preferences?.showThinkingBlocks === false ? 'false' : 'true'} {...frameAttributes(preferences)}>
      <div className="drawer" id="app-drawer" ref={drawer}>
        <Sidebar route={route} />
        <nav aria-label="Pages" className="pages-nav">
          <PageLink href="/wallet" current={route.name === 'wallet'} icon={Wallet} label="Wallet" />
          <PageLink href="/settings" current={route.name === 'settings'} icon={Settings} label="Settings" />
          <PageLink href="/gallery" current={route.name === 'gallery'} icon={Images} label="Gallery" />
          <PageLink href="/invitations" current={route.name === 'invitations'} icon={Gift} label="Invitations" />
          <PageLink href="/library" current={route.name === 'library'} icon={Library} label="Library" />
          <UpdatesLink current={route.name === 'updates'} />
          <PageLinksToggle collapsed={false} />
        </nav>
        <PageLinksToggle collapsed />
      </div>
      {drawerOpen && <div className="drawer-backdrop" aria-hidden="true" onClick={closeDrawer} />}
      <main className="main" aria-busy={ready ? undefined : true} data-ready={ready ? 'true' : 'false'}>
        <div className="topbar">
          <button
            ref={menuButton}
            type="button"
            className="menu-button"
            aria-expanded={drawerOpen}
            aria-controls="app-drawer"
            onClick={() => (view.drawerOpen = !view.drawerOpen)}
          >
            <svg viewBox="0 0 24 24" width="20" height="20" aria-hidden="true">
              <path d="M4 7h16M4 12h16M4 17h16" stroke="currentColor" strokeWidth="2" strokeLinecap="round" fill="none" />
            </svg>
            <span className="menu-label">Menu</span>
          </button>
          <span className="brand">Parley</span>
        </div>
        <ShowSidebarButton />
        <Notifications>
          <ConsentBanner />
          <RecoveryPrompt />
          <InstallBanner />
        </Notifications>
        <AudioPlayerBar />
        <ErrorBoundary resetKey={path} fallback={<p className="page-failed" role="alert">This page could not be shown. Choose another page, or reload to try again.</p>}>
        {route.name === 'conversation' && (
          <ToolSplit slug={route.slug === 'new' ? null : route.slug}>
            <ConversationPage key={route.slug === 'new' ? 'new' : 'conversation'} slug={route.slug} />
          </ToolSplit>
        )}
        <Suspense fallback={pageLoading}>
          {route.name === 'wallet' && <WalletPage section={route.section} />}
          {route.name === 'settings' && <SettingsPage section={route.section} />}
          {route.name === 'gallery' && <GalleryPage />}
          {route.name === 'invitations' && <InvitationsPage />}
          {route.name === 'library' && <LibraryPage />}
          {route.name === 'updates' && <UpdatesPage />}
        </Suspense>
        {viewer && (
          <Suspense fallback={null}>
            <ImageViewer />
          </Suspense>
        )}
        {route.name === 'inspector' && (
          <Suspense fallback={<p className="muted">Loading the Inspector…</p>}>
            <InspectorPage />
          </Suspense>
        )}
        </ErrorBoundary>
      </main>
    </div>
  );
}
