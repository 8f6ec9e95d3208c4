/**
 * TopicSelect picks a subscription topic (GET {subscriptions}/topics) for a marketing template or a
 * blast: "No topic" or one of the project's topics, with a line saying what a topic does. The topics load once; while
 * they load, and if they cannot, the select says so and keeps the current value.
 */
import { useEffect, useState } from 'react';
import { TextField } from '@mui/material';
import { callOperation } from '../../data/gateway';

interface TopicOption {
  id: string;
  name: string;
}

/** TopicSelect is a native select of the project's topics; `value` '' means none. */
export function TopicSelect({ id, value, onChange, noneLabel = 'No topic' }: { id: string; value: string; onChange: (v: string) => void; noneLabel?: string }) {
  const [topics, setTopics] = useState<TopicOption[] | null>(null);
  const [failed, setFailed] = useState(false);
  useEffect(() => {
    let live = true;
    callOperation('listTopics', {})
      .then((b) => live && setTopics(b.data.map((t) => ({ id: t.id, name: t.name }))))
      .catch(() => live && setFailed(true));
    return () => {
      live = false;
    };
  }, []);
  const help = failed
    ? 'Couldn’t load the topics; try again later.'
    : topics === null
      ? 'Loading topics…'
      : topics.length
        ? 'Marketing email of a topic skips contacts who left it; its unsubscribe link lets them leave just this topic.'
        : 'No topics yet: add them under People → Topics.';
  return (
    <TextField
      id={id}
      select
      label="Topic"
      value={value}
      onChange={(e) => onChange(e.target.value)}
      helperText={help}
      error={failed}
      sx={{ minWidth: 200 }}
      slotProps={{ select: { native: true }, inputLabel: { shrink: true } }}
    >
      <option value="">{noneLabel}</option>
      {(topics ?? []).map((t) => (
        <option key={t.id} value={t.id}>
          {t.name}
        </option>
      ))}
      {value && topics && !topics.some((t) => t.id === value) && <option value={value}>(a deleted topic)</option>}
    </TextField>
  );
}
