/** The navigation tree (spec part 1 §2 Navigation): sections, each with its icon, expand along the current route; each can be toggled. */
import { useState } from 'react';
import { Link as RouterLink, useLocation } from 'react-router-dom';
import { Box, Collapse, IconButton, List, ListItemButton, ListItemIcon, ListItemText } from '@mui/material';
import type { SvgIconComponent } from '@mui/icons-material';
import ExpandLess from '@mui/icons-material/ExpandLess';
import ExpandMore from '@mui/icons-material/ExpandMore';
import InsightsOutlined from '@mui/icons-material/InsightsOutlined';
import CampaignOutlined from '@mui/icons-material/CampaignOutlined';
import ForwardToInboxOutlined from '@mui/icons-material/ForwardToInboxOutlined';
import SendOutlined from '@mui/icons-material/SendOutlined';
import PeopleOutlined from '@mui/icons-material/PeopleOutlined';
import WidgetsOutlined from '@mui/icons-material/WidgetsOutlined';
import SettingsOutlined from '@mui/icons-material/SettingsOutlined';
import { NAVIGATION, type NavItem } from '../routes';

/** The icon of each section of the navigation (its top-level entries). */
const SECTION_ICONS: Record<string, SvgIconComponent> = {
  '/insights': InsightsOutlined,
  '/messages': ForwardToInboxOutlined,
  '/campaigns': CampaignOutlined,
  '/email-send-wizard': SendOutlined,
  '/people': PeopleOutlined,
  '/components': WidgetsOutlined,
  '/account': SettingsOutlined,
};

function isOnPath(pathname: string, path: string): boolean {
  return pathname === path || pathname.startsWith(`${path}/`);
}

function NavNode({ item, depth, onNavigate }: { item: NavItem; depth: number; onNavigate?: () => void }) {
  const { pathname } = useLocation();
  const onPath = isOnPath(pathname, item.path);
  const [toggled, setToggled] = useState<boolean | undefined>(undefined);
  const expanded = toggled ?? onPath;
  const hasChildren = !!item.children?.length;
  const Icon = depth === 0 ? SECTION_ICONS[item.path] : undefined;
  // One <li> per item holding its link, its toggle and its sub-list, so the markup is a proper nested list.
  return (
    <Box component="li" sx={{ listStyle: 'none' }}>
      <Box sx={{ display: 'flex', alignItems: 'center' }}>
        <ListItemButton
          component={RouterLink}
          to={item.path}
          selected={pathname === item.path}
          aria-current={pathname === item.path ? 'page' : undefined}
          onClick={() => {
            setToggled(undefined);
            onNavigate?.();
          }}
          sx={{ pl: depth === 0 ? 2 : 2 + 1.5 + depth * 2, py: 0.5 }}
        >
          {Icon && (
            <ListItemIcon sx={{ minWidth: 36 }}>
              <Icon fontSize="small" />
            </ListItemIcon>
          )}
          <ListItemText primary={item.label} slotProps={{ primary: { sx: { fontSize: depth === 0 ? 15 : 14, fontWeight: depth === 0 ? 600 : 400 } } }} />
        </ListItemButton>
        {hasChildren && (
          <IconButton
            size="small"
            title={`${expanded ? 'Collapse' : 'Expand'} ${item.label}`}
            aria-expanded={expanded}
            onClick={() => setToggled(!expanded)}
            sx={{ mr: 1 }}
          >
            {expanded ? <ExpandLess fontSize="small" /> : <ExpandMore fontSize="small" />}
          </IconButton>
        )}
      </Box>
      {hasChildren && (
        <Collapse in={expanded} timeout="auto" unmountOnExit>
          <List disablePadding dense>
            {item.children!.map((child) => (
              <NavNode key={child.path} item={child} depth={depth + 1} onNavigate={onNavigate} />
            ))}
          </List>
        </Collapse>
      )}
    </Box>
  );
}

/** NavTree renders the whole navigation; `onNavigate` lets the narrow-screen menu close after a click. */
export function NavTree({ onNavigate }: { onNavigate?: () => void }) {
  return (
    <Box component="nav" aria-label="Main navigation">
      <List dense>
        {NAVIGATION.map((item) => (
          <NavNode key={item.path} item={item} depth={0} onNavigate={onNavigate} />
        ))}
      </List>
    </Box>
  );
}
