/**
 * Topics (/people/topics; openapi/subscriptions.yaml): the project's subscription topics — add, rename,
 * delete — each with how many contacts left it and how many unsubscribes it had (the unsubscribes counted per topic).
 * A marketing template or a blast names its topic; its unsubscribe link then lets a recipient leave just that topic.
 */
import { LoadStatus } from '../account/LoadStatus';
import { useCallback, useEffect, useState, type FormEvent } from 'react';
import { useNotify } from 'react-admin';
import {
  Alert,
  Box,
  Button,
  Card,
  CardContent,
  Dialog,
  DialogActions,
  DialogContent,
  DialogTitle,
  Stack,
  Table,
  TableBody,
  TableCell,
  TableHead,
  TableRow,
  TextField,
  Typography,
} from '@mui/material';
import type { components } from '../../../generated/types/subscriptions.gen';
import { callOperation } from '../data/gateway';

type Topic = components['schemas']['Topic'];

/** TopicDialog renames a topic or changes its description. */
function TopicDialog({ topic, onClose, onSaved }: { topic: Topic; onClose: () => void; onSaved: () => void }) {
  const notify = useNotify();
  const [name, setName] = useState(topic.name);
  const [description, setDescription] = useState(topic.description);
  const [error, setError] = useState('');
  const save = async (event: FormEvent) => {
    event.preventDefault();
    try {
      await callOperation('updateTopic', { path: { id: topic.id }, body: { name, description } });
      notify('Topic saved', { type: 'success' });
      onSaved();
      onClose();
    } catch (e) {
      setError((e as Error).message.replace(/^name: /, 'Name: '));
    }
  };
  return (
    <Dialog open onClose={onClose} fullWidth maxWidth="sm" aria-labelledby="topic-edit-title">
      <Box component="form" onSubmit={save} noValidate>
        <DialogTitle id="topic-edit-title">Edit topic</DialogTitle>
        <DialogContent>
          <Stack spacing={2} sx={{ pt: 1 }}>
            <TextField id="topic-edit-name" label="Name" value={name} onChange={(e) => setName(e.target.value)} required error={!!error} helperText={error} />
            <TextField id="topic-edit-description" label="Description" value={description} onChange={(e) => setDescription(e.target.value)} />
          </Stack>
        </DialogContent>
        <DialogActions>
          <Button onClick={onClose}>Cancel</Button>
          <Button type="submit" variant="contained">
            Save
          </Button>
        </DialogActions>
      </Box>
    </Dialog>
  );
}

/** TopicsPage is /people/topics. */
export function TopicsPage() {
  const notify = useNotify();
  const [topics, setTopics] = useState<Topic[] | null>(null);
  const [loadError, setLoadError] = useState('');
  const [name, setName] = useState('');
  const [description, setDescription] = useState('');
  const [error, setError] = useState('');
  const [editing, setEditing] = useState<Topic | null>(null);
  const [deleting, setDeleting] = useState<Topic | null>(null);

  const load = useCallback(async () => {
    setLoadError('');
    try {
      setTopics((await callOperation('listTopics', {})).data);
    } catch (e) {
      setLoadError(`Couldn’t load the topics: ${(e as Error).message}`);
    }
  }, []);
  useEffect(() => {
    void load();
  }, [load]);

  const add = async (event: FormEvent) => {
    event.preventDefault();
    if (!name.trim()) return setError('Name: Required field');
    try {
      await callOperation('createTopic', { body: { name: name.trim(), description: description.trim() } });
      notify(`Topic ‘${name.trim()}’ added`, { type: 'success' });
      setName('');
      setDescription('');
      setError('');
      await load();
    } catch (e) {
      setError((e as Error).message.replace(/^name: /, 'Name: '));
    }
  };
  const remove = async (t: Topic) => {
    try {
      await callOperation('deleteTopic', { path: { id: t.id } });
      notify(`Topic ‘${t.name}’ deleted`, { type: 'success' });
      await load();
    } catch (e) {
      notify(`Couldn’t delete the topic: ${(e as Error).message}`, { type: 'error' });
    } finally {
      setDeleting(null);
    }
  };

  return (
    <Stack spacing={2}>
      <Typography variant="h5" component="h1">
        Topics
      </Typography>
      <Alert severity="info">
        Topics let recipients choose what they get: a marketing template or blast names its topic, and its unsubscribe link leads to a preference centre where
        they can leave just that topic, choose topics, or leave all marketing email.
      </Alert>
      <Card>
        <CardContent>
          <Typography variant="h6" component="h2" gutterBottom>
            Add a topic
          </Typography>
          <Box component="form" onSubmit={add} noValidate sx={{ display: 'flex', gap: 2, flexWrap: 'wrap', alignItems: 'flex-start' }}>
            <TextField
              id="topic-name"
              label="Name"
              placeholder="Product news"
              value={name}
              onChange={(e) => setName(e.target.value)}
              required
              error={!!error}
              helperText={error || 'What recipients see in the preference centre'}
            />
            <TextField
              id="topic-description"
              label="Description (optional)"
              value={description}
              onChange={(e) => setDescription(e.target.value)}
              sx={{ flex: 1, minWidth: 220 }}
            />
            <Button type="submit" variant="contained" sx={{ mt: 1 }}>
              Add topic
            </Button>
          </Box>
        </CardContent>
      </Card>
      <LoadStatus
        rows={topics}
        error={loadError}
        onRetry={() => void load()}
        loadingLabel="Loading topics"
        emptyText="No topics yet. Without topics, unsubscribing stops all marketing email."
      />
      {!!topics?.length && (
        <Card>
          <Box sx={{ overflowX: 'auto' }}>
            <Table aria-label="Topics">
              <TableHead>
                <TableRow>
                  <TableCell>Name</TableCell>
                  <TableCell>Description</TableCell>
                  <TableCell align="right">Contacts who left it</TableCell>
                  <TableCell align="right">Unsubscribes</TableCell>
                  <TableCell />
                </TableRow>
              </TableHead>
              <TableBody>
                {topics.map((t) => (
                  <TableRow key={t.id}>
                    <TableCell>{t.name}</TableCell>
                    <TableCell>{t.description}</TableCell>
                    <TableCell align="right">{t.unsubscribed_contacts.toLocaleString('en-US')}</TableCell>
                    <TableCell align="right">{t.unsubscribes.toLocaleString('en-US')}</TableCell>
                    <TableCell sx={{ whiteSpace: 'nowrap' }}>
                      <Button size="small" onClick={() => setEditing(t)} aria-label={`Edit ${t.name}`}>
                        Edit
                      </Button>
                      <Button size="small" color="error" onClick={() => setDeleting(t)} aria-label={`Delete ${t.name}`}>
                        Delete
                      </Button>
                    </TableCell>
                  </TableRow>
                ))}
              </TableBody>
            </Table>
          </Box>
        </Card>
      )}
      {editing && <TopicDialog topic={editing} onClose={() => setEditing(null)} onSaved={() => void load()} />}
      <Dialog open={!!deleting} onClose={() => setDeleting(null)} aria-labelledby="topic-delete-title">
        <DialogTitle id="topic-delete-title">Delete ‘{deleting?.name}’?</DialogTitle>
        <DialogContent>
          <Typography>Templates and blasts that name it will have no topic; contacts who left it are no longer kept from their email.</Typography>
        </DialogContent>
        <DialogActions>
          <Button onClick={() => setDeleting(null)}>Cancel</Button>
          <Button color="error" variant="contained" onClick={() => deleting && void remove(deleting)}>
            Delete
          </Button>
        </DialogActions>
      </Dialog>
    </Stack>
  );
}
