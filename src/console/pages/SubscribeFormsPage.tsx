/**
 * Subscribe forms (/people/subscribe-forms; openapi/subscriptions.yaml): make a segment subscribable through a hosted
 * form with double opt-in — choose the segment, the sender persona that mails the confirmation link, the heading and
 * the consent text shown — and get the hosted page's link and an HTML snippet to paste into a website, with each
 * form's pending and confirmed submissions. Consent records are kept per submission. The list, the form (its pick
 * lists included), editing and deleting come from listSubscribeForms' `x-screen` (ManagedList); this page draws a card.
 */
import { Alert, AlertTitle, Box, Link, Typography } from '@mui/material';
import { Link as RouterLink } from 'react-router-dom';
import { screensByName } from '../../../generated/screens.gen';
import type { components } from '../../../generated/types/subscriptions.gen';
import { CopyField } from '../account/CopyField';
import { ManagedList, type Row } from '../resources/shared/ManagedList';
import { useSession } from '../session';

type Form = components['schemas']['SubscribeForm'];

/** FormCard shows a form's counts, its hosted page and its snippet. */
function FormCard({ form: f }: { form: Form }) {
  return (
    <>
      <Typography variant="h6" component="h2">
        {f.name}
      </Typography>
      <Typography variant="body2" color="text.secondary" gutterBottom>
        {f.heading} · {f.confirmed.toLocaleString('en-US')} confirmed, {f.pending.toLocaleString('en-US')} waiting for their click
      </Typography>
      <Typography variant="body2" gutterBottom>
        Hosted page:{' '}
        <Link href={f.url} target="_blank" rel="noopener">
          {f.url}
        </Link>
      </Typography>
      <Box sx={{ maxWidth: 760 }}>
        <CopyField id={`snippet-${f.id}`} label="HTML snippet for your website" value={f.snippet} multiline />
      </Box>
    </>
  );
}

/**
 * SandboxNotice: while the account is in its sandbox a form takes sign-ups only from the sender personas' own
 * addresses (to try it); visitors are told sign-ups are not open yet. Said before a form goes on a website.
 */
function SandboxNotice() {
  const session = useSession();
  if (!session || session.not_in_sandbox) return null;
  return (
    <Alert severity="warning" sx={{ mb: 2 }} data-testid="forms-sandbox-notice">
      <AlertTitle>Your forms cannot take sign-ups yet</AlertTitle>
      Your account is in its sandbox: a form accepts only your sender personas&apos; own addresses, so you can try it. Visitors see &ldquo;Sign-ups are not open
      yet&rdquo; and nothing is saved.{' '}
      <Link component={RouterLink} to="/insights">
        Ask for activation on Insights
      </Link>{' '}
      before you put a form on your website.
    </Alert>
  );
}

/** SubscribeFormsPage is /people/subscribe-forms. */
export function SubscribeFormsPage() {
  return (
    <>
      <SandboxNotice />
      <ManagedList definition={screensByName['subscribe-forms']} renderCard={(row: Row) => <FormCard form={row as unknown as Form} />} />
    </>
  );
}
