/** The public forms' frame (login, demo login, sign-up, contact): the site layout with one centred card and its h1. */
import type { ReactNode } from 'react';
import { Box, Card, CardContent, Typography } from '@mui/material';
import { PublicLayout } from './PublicLayout';

/** FormCard renders `children` in a card `maxWidth` px wide under the page title. */
export function FormCard({ title, maxWidth, children }: { title: ReactNode; maxWidth: number; children: ReactNode }) {
  return (
    <PublicLayout>
      <Box sx={{ display: 'flex', justifyContent: 'center' }}>
        <Card sx={{ width: '100%', maxWidth }}>
          <CardContent>
            <Typography variant="h4" component="h1" gutterBottom>
              {title}
            </Typography>
            {children}
          </CardContent>
        </Card>
      </Box>
    </PublicLayout>
  );
}
