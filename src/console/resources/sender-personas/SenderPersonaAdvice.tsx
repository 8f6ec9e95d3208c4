/** The persona form's advice (spec part 2 §5 Sender persona): inbox access before saving, verification after. */
import { Alert, Stack } from '@mui/material';

/** SenderPersonaAdvice shows the warning and the verification info. */
export function SenderPersonaAdvice() {
  return (
    <Stack spacing={1} sx={{ mt: 2 }}>
      <Alert severity="warning">Make sure you have access to this persona’s inbox before saving.</Alert>
      <Alert severity="info">
        After saving, click the verification link in the email from the email provider; until then emails from this persona are blocked.
      </Alert>
    </Stack>
  );
}
