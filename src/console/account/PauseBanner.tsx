/**
 * The reputation circuit-breaker's banner (core/sending/reputation.ts; GET {scheduler}/sending_status), shown on
 * every console page while the project's marketing sending is paused: why, the rates, and a Resume button; and, above
 * it, an operator's suspension of all sending (account_status, read every 15 s: accountStatus.ts), which only support lifts. Resuming
 * while the rates are still over their limits is confirmed first (the rates are counted afresh from the resume).
 */
import { useCallback, useEffect, useState } from 'react';
import { useLocation } from 'react-router-dom';
import { Alert, AlertTitle, Box, Button, Dialog, DialogActions, DialogContent, DialogContentText, DialogTitle } from '@mui/material';
import type { OperationResponse } from '../data/apiTypes';
import { callOperation } from '../data/gateway';
import { getSession } from '../session';
import { useAccountStatus } from './accountStatus';
import { formatRatePrecise } from '../../domain/reports';

type Status = OperationResponse<'getSendingStatus'>;

/** PauseBanner renders nothing while sending is not paused (or for a visitor without a session). */
export function PauseBanner() {
  const { pathname } = useLocation();
  const [status, setStatus] = useState<Status | null>(null);
  const [confirming, setConfirming] = useState(false);
  const [error, setError] = useState('');
  const [busy, setBusy] = useState(false);
  const signedIn = !!getSession();
  const account = useAccountStatus();

  const load = useCallback(() => {
    if (!signedIn) return;
    callOperation('getSendingStatus').then(setStatus, () => undefined);
  }, [signedIn]);
  useEffect(load, [load, pathname]);

  if (account?.sending_suspended) {
    return (
      <Alert severity="error" sx={{ mb: 2 }} data-testid="suspended-banner">
        <AlertTitle>Sending is suspended</AlertTitle>
        {account.suspend_reason} No email leaves this project, not even test emails, until Mailwright support lifts the suspension. Use the contact page to
        reach us.
      </Alert>
    );
  }
  if (!status?.paused) return null;
  const resume = async () => {
    setBusy(true);
    setError('');
    try {
      setStatus(await callOperation('resumeSending'));
      setConfirming(false);
    } catch (e) {
      setError((e as Error).message);
      load();
    } finally {
      setBusy(false);
    }
  };
  return (
    <Alert severity="error" sx={{ mb: 2 }} data-testid="pause-banner">
      <AlertTitle>Marketing sending is paused</AlertTitle>
      {status.reason} Blasts and workflow emails wait; test emails and single sends still go out.
      {error && <div role="alert">Couldn’t resume: {error}</div>}
      <Box sx={{ mt: 1 }}>
        <Button color="inherit" size="small" variant="outlined" onClick={() => setConfirming(true)} disabled={busy}>
          Resume sending
        </Button>
      </Box>
      <Dialog open={confirming} onClose={() => setConfirming(false)} aria-labelledby="resume-title">
        <DialogTitle id="resume-title">Resume marketing sending?</DialogTitle>
        <DialogContent>
          <DialogContentText>
            Over the last {status.sends_24h} sends, the hard-bounce rate is {formatRatePrecise(status.bounce_rate)} and the complaint rate{' '}
            {formatRatePrecise(status.complaint_rate)}. Sending more to the same list can hurt your sender reputation with mailbox providers. The rates are
            counted afresh from now on.
          </DialogContentText>
        </DialogContent>
        <DialogActions>
          <Button onClick={() => setConfirming(false)}>Cancel</Button>
          <Button onClick={resume} variant="contained" color="error" disabled={busy}>
            Resume anyway
          </Button>
        </DialogActions>
      </Dialog>
    </Alert>
  );
}
