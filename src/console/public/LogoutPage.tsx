/** /logout (spec part 1 §2, §4): ends the session, then goes to /login. */
import { useEffect } from 'react';
import { useNavigate } from 'react-router-dom';
import { Box, CircularProgress } from '@mui/material';
import { clearSession } from '../session';

/** LogoutPage clears the user_info cookie and replaces the location with /login. */
export function LogoutPage() {
  const navigate = useNavigate();
  useEffect(() => {
    clearSession();
    navigate('/login', { replace: true });
  }, [navigate]);
  return (
    <Box sx={{ display: 'flex', justifyContent: 'center', p: 4 }}>
      <CircularProgress aria-label="Logging out" />
    </Box>
  );
}
