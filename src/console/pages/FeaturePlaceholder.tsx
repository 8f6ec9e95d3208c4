/** Authenticated screens that belong to later issues (spec part 1 §2 Authenticated routes): never a blank page. */
import { Link as RouterLink } from 'react-router-dom';
import { Button, Card, CardContent, Typography } from '@mui/material';

/** FeaturePlaceholder names the feature of the current route and says it is coming in a later release. */
export function FeaturePlaceholder({ feature }: { feature: string }) {
  return (
    <Card variant="outlined" sx={{ maxWidth: 720 }}>
      <CardContent>
        <Typography variant="h5" component="h1" gutterBottom>
          {feature}
        </Typography>
        <Typography sx={{ mb: 2 }}>{feature} is coming in a later release.</Typography>
        <Button variant="outlined" component={RouterLink} to="/insights">
          Back to Insights
        </Button>
      </CardContent>
    </Card>
  );
}
