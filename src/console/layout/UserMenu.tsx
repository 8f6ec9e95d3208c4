/**
 * The user menu of the console's frame: an avatar with the signed-in user's initials that opens a menu naming the
 * user, their company and project, with Account settings, API keys (the integrations page, where the key is shown)
 * and Sign out. Keyboard: Enter or Space opens it, the arrow keys move, Escape closes it (MUI Menu).
 */
import { useState } from 'react';
import { Link as RouterLink } from 'react-router-dom';
import { Avatar, Divider, IconButton, ListItemIcon, Menu, MenuItem, Typography } from '@mui/material';
import SettingsOutlined from '@mui/icons-material/SettingsOutlined';
import KeyOutlined from '@mui/icons-material/KeyOutlined';
import LogoutOutlined from '@mui/icons-material/LogoutOutlined';
import { useSession } from '../session';

/** The menu's entries: where each leads (API keys: the integrations page, where the key is shown). */
const USER_MENU = [
  { label: 'Account settings', to: '/account', Icon: SettingsOutlined },
  { label: 'API keys', to: '/account/api', Icon: KeyOutlined },
  { label: 'Sign out', to: '/logout', Icon: LogoutOutlined },
] as const;

/** initialsOf: up to two letters from a user's names, else the first letter of the address. */
export function initialsOf(user: { email: string; first_name: string | null; last_name: string | null }): string {
  const names = [user.first_name, user.last_name].map((n) => n?.trim()).filter((n): n is string => !!n);
  const letters = names.length ? names.map((n) => n[0]) : [user.email[0] ?? '?'];
  return letters.slice(0, 2).join('').toUpperCase();
}

/** UserMenu renders the avatar button and its menu; nothing when signed out. `color` suits the bar it sits on. */
export function UserMenu({ onDark = false }: { onDark?: boolean }) {
  const session = useSession();
  const [anchor, setAnchor] = useState<HTMLElement | null>(null);
  if (!session) return null;
  const { user } = session;
  const name = [user.first_name, user.last_name].filter(Boolean).join(' ') || user.email;
  const close = () => setAnchor(null);
  return (
    <>
      <IconButton
        aria-label={`Account menu of ${name}`}
        aria-haspopup="menu"
        aria-expanded={!!anchor}
        aria-controls={anchor ? 'user-menu' : undefined}
        onClick={(e) => setAnchor(e.currentTarget)}
        size="small"
      >
        <Avatar
          sx={{ width: 32, height: 32, fontSize: 14, bgcolor: onDark ? 'common.white' : 'primary.main', color: onDark ? 'primary.main' : 'common.white' }}
        >
          {initialsOf(user)}
        </Avatar>
      </IconButton>
      <Menu
        id="user-menu"
        anchorEl={anchor}
        open={!!anchor}
        onClose={close}
        anchorOrigin={{ vertical: 'bottom', horizontal: 'right' }}
        transformOrigin={{ vertical: 'top', horizontal: 'right' }}
      >
        <MenuItem disabled sx={{ display: 'block', opacity: '1 !important' }}>
          <Typography variant="subtitle2" component="p">
            {name}
          </Typography>
          <Typography variant="body2" color="text.secondary" component="p" sx={{ overflowWrap: 'anywhere' }}>
            {user.email}
          </Typography>
          <Typography variant="caption" color="text.secondary" component="p">
            {session.company.name} / {session.project.name}
          </Typography>
        </MenuItem>
        <Divider />
        {USER_MENU.map(({ label, to, Icon }) => (
          <MenuItem key={to} component={RouterLink} to={to} onClick={close}>
            <ListItemIcon>
              <Icon fontSize="small" />
            </ListItemIcon>
            {label}
          </MenuItem>
        ))}
      </Menu>
    </>
  );
}
