/**
 * The logged-in console (spec part 1 §2 Authenticated routes, part 2 §2): react-admin inside the app's one router.
 * Resources are registered for react-admin's registry; their screens are mounted at the spec's routes through
 * CustomRoutes, and every authenticated route of both spec parts is registered.
 */
import { lazy, type ComponentType } from 'react';
import { Navigate, Route, useLocation } from 'react-router-dom';
import { Admin, CustomRoutes, Notification, Resource, ResourceContextProvider, defaultTheme, type RaThemeOptions } from 'react-admin';
import { resourcesByName, type ResourceDefinition } from '../../generated/resources.gen';
import { authProvider } from './data/authProvider';
import { dataProvider } from './data/dataProvider';
import { ConsoleLayout } from './layout/ConsoleLayout';
import { EmailViewer } from './pages/EmailViewer';
import { FeaturePlaceholder } from './pages/FeaturePlaceholder';
import { InsightsPage } from './pages/InsightsPage';
import { NotificationsPage } from './pages/NotificationsPage';
import { TeamPage } from './account/TeamPage';
import { IntegrationsPage } from './account/IntegrationsPage';
import { WebhooksPage } from './account/WebhooksPage';
import { SmtpPage } from './account/SmtpPage';
import { RetentionPage } from './account/RetentionPage';
import { AudienceHealthPage } from './account/AudienceHealthPage';
import { MessagesPage } from './messages/MessagesPage';
import { MessagePage } from './messages/MessagePage';
import { TopicsPage } from './pages/TopicsPage';
import { SubscribeFormsPage } from './pages/SubscribeFormsPage';
import { SettingsPage } from './account/SettingsPage';
import { DomainsPage } from './account/DomainsPage';
import { SectionLanding } from './pages/SectionLanding';
import { ContactUploadPage } from './pages/ContactUploadPage';
import { LogoutPage } from './public/LogoutPage';
import contacts from './resources/contacts';
import emailBlasts from './resources/email-blasts';
import senderPersonas from './resources/sender-personas';
import templates from './resources/templates';
import segments from './resources/segments';
import campaigns from './resources/campaigns';
import workflows from './resources/workflows';
import { publicPageRoutes } from './public/publicRoutes';
import { BRAND_COLOR, BRAND_COLOR_DARK } from './public/brand';

/** The Events screen brings @mui/x-data-grid, so it is loaded when first opened. */
const EventsPage = lazy(() => import('./pages/EventsPage').then((m) => ({ default: m.EventsPage })));
/** The report pages (spec part 1 §2 Insights and reports) are loaded when first opened; their charts later still. */
const StatsPage = lazy(() => import('./reports/StatsPage').then((m) => ({ default: m.StatsPage })));
const IssuesPage = lazy(() => import('./reports/IssuesPage').then((m) => ({ default: m.IssuesPage })));
/** The send wizard (spec part 2 §2 Send wizard) is loaded when first opened. */
const SendWizardPage = lazy(() => import('./wizard/SendWizardPage').then((m) => ({ default: m.SendWizardPage })));
const AnalysisPage = lazy(() => import('./reports/AnalysisPage').then((m) => ({ default: m.AnalysisPage })));

interface ResourceModule {
  list: ComponentType;
  edit: ComponentType;
  create: ComponentType;
  icon: ComponentType;
  recordRepresentation: string;
}

const RESOURCES: Array<{ definition: ResourceDefinition; module: ResourceModule; extraCreatePaths?: string[] }> = [
  { definition: resourcesByName.contacts, module: contacts },
  { definition: resourcesByName['sender-personas'], module: senderPersonas },
  { definition: resourcesByName.templates, module: templates, extraCreatePaths: ['/new/:id'] },
  { definition: resourcesByName['email-blasts'], module: emailBlasts },
  { definition: resourcesByName.campaigns, module: campaigns },
  { definition: resourcesByName.workflows, module: workflows },
];

function screen(resource: string, Component: ComponentType) {
  return (
    <ResourceContextProvider value={resource}>
      <Component />
    </ResourceContextProvider>
  );
}

function ToastNotification() {
  return <Notification anchorOrigin={{ vertical: 'bottom', horizontal: 'center' }} autoHideDuration={6000} />;
}

function ConsoleNotFound() {
  const { pathname } = useLocation();
  return <FeaturePlaceholder feature={`The page ${pathname}`} />;
}

/** resourceRoutes mounts one resource's list, create and edit screens at its spec routes. */
function resourceRoutes({ definition, module, extraCreatePaths = [] }: (typeof RESOURCES)[number]) {
  const { name, route } = definition;
  return [
    <Route key={route} path={route} element={screen(name, module.list)} />,
    <Route key={`${route}/new`} path={`${route}/new`} element={screen(name, module.create)} />,
    ...extraCreatePaths.map((p) => <Route key={route + p} path={route + p} element={screen(name, module.create)} />),
    <Route key={`${route}/edit`} path={`${route}/edit/:id`} element={screen(name, module.edit)} />,
  ];
}

/**
 * The console's theme: react-admin's default with the primary blue darkened to #1565c0, so primary text on white and
 * on the light greys of lists and alerts meets WCAG AA contrast (axe-core, tests/e2e/a11y.e2e.ts).
 */
/** The console in the brand's colour (public/brand.ts), as the public site. */
const consoleTheme: RaThemeOptions = { ...defaultTheme, palette: { ...defaultTheme.palette, primary: { main: BRAND_COLOR, dark: BRAND_COLOR_DARK } } };

/** ConsoleApp renders react-admin with the console's layout, providers and routes. */
export default function ConsoleApp() {
  return (
    <Admin
      dataProvider={dataProvider}
      authProvider={authProvider}
      layout={ConsoleLayout}
      theme={consoleTheme}
      dashboard={InsightsPage}
      catchAll={ConsoleNotFound}
      notification={ToastNotification}
      loginPage={false}
      disableTelemetry
      title="Mailwright"
    >
      {RESOURCES.map(({ definition, module }) => (
        <Resource key={definition.name} name={definition.name} icon={module.icon} recordRepresentation={module.recordRepresentation} />
      ))}
      <Resource name="segments" icon={segments.icon} recordRepresentation={segments.recordRepresentation} />
      <Resource name="events" recordRepresentation="name" />
      <CustomRoutes>
        <Route path="/insights" element={<InsightsPage />} />
        <Route path="/insights/stats" element={<StatsPage />} />
        <Route path="/insights/issues" element={<IssuesPage />} />
        <Route path="/insights/analysis" element={<AnalysisPage />} />
        <Route path="/login" element={<Navigate to="/insights" replace />} />
        <Route path="/logout" element={<LogoutPage />} />
        <Route path="/people" element={screen('contacts', contacts.list)} />
        <Route path="/people/segments" element={screen('segments', segments.list)} />
        <Route path="/people/segments/new/empty" element={screen('segments', segments.create)} />
        <Route path="/people/segments/edit/:id" element={screen('segments', segments.edit)} />
        <Route path="/people/segments/new/filter" element={screen('segments', segments.filter)} />
        <Route path="/people/users/new/bulk" element={<ContactUploadPage key="contacts" mode="contacts" />} />
        <Route path="/people/segments/new/bulk/2" element={<ContactUploadPage key="segment" mode="segment" />} />
        {RESOURCES.flatMap(resourceRoutes)}
        <Route path="/components" element={<SectionLanding path="/components" />} />
        <Route path="/account" element={<SectionLanding path="/account" />} />
        <Route path="/account/events" element={<EventsPage />} />
        <Route path="/account/notifications" element={<NotificationsPage />} />
        <Route path="/account/team" element={<TeamPage />} />
        <Route path="/account/api" element={<IntegrationsPage />} />
        <Route path="/account/settings" element={<SettingsPage />} />
        <Route path="/account/domains" element={<DomainsPage />} />
        <Route path="/account/webhooks" element={<WebhooksPage />} />
        <Route path="/account/smtp" element={<SmtpPage />} />
        <Route path="/account/retention" element={<RetentionPage />} />
        <Route path="/account/audience-health" element={<AudienceHealthPage />} />
        <Route path="/messages" element={<MessagesPage />} />
        <Route path="/messages/:id" element={<MessagePage />} />
        <Route path="/people/topics" element={<TopicsPage />} />
        <Route path="/people/subscribe-forms" element={<SubscribeFormsPage />} />
        <Route path="/email-send-wizard" element={<SendWizardPage />} />
        <Route path="/sender-wizard" element={<Navigate to="/email-send-wizard" replace />} />
      </CustomRoutes>
      <CustomRoutes noLayout>
        <Route path="/email/:location" element={<EmailViewer />} />
        {publicPageRoutes()}
      </CustomRoutes>
    </Admin>
  );
}
