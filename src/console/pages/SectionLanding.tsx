/** Section landing pages (spec part 1 §2): /components and /account list their subpages. */
import { Link as RouterLink } from 'react-router-dom';
import { Card, CardContent, List, ListItem, ListItemButton, ListItemText, Typography } from '@mui/material';
import { NAVIGATION } from '../routes';

/** SectionLanding lists the subpages of the navigation section at `path`. */
export function SectionLanding({ path }: { path: string }) {
  const section = NAVIGATION.find((item) => item.path === path);
  return (
    <Card variant="outlined" sx={{ maxWidth: 720 }}>
      <CardContent>
        <Typography variant="h5" component="h1" gutterBottom>
          {section?.label ?? path}
        </Typography>
        <List>
          {(section?.children ?? []).map((child) => (
            <ListItem key={child.path} disablePadding>
              <ListItemButton component={RouterLink} to={child.path}>
                <ListItemText primary={child.label} secondary={child.children?.map((c) => c.label).join(' · ')} />
              </ListItemButton>
            </ListItem>
          ))}
        </List>
      </CardContent>
    </Card>
  );
}
