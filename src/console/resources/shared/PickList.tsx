/**
 * Pick lists (spec part 2 §2 Pick lists, §9): single and multi selects of templates, email blasts (enabled ones only),
 * campaigns and workflows, and for the workflow editor's nodes segments and sender personas, searched by name 10 at a
 * time. The options come from a
 * PickSource (a search and a look-up by ids through the dataProvider); chosen ids that are not among the options
 * (e.g. a disabled blast a campaign still holds) are named by looking them up. A source may make one search per
 * opening of the list (`opening`): the sender personas, which the gateway cannot search, are read once when the list
 * opens and filtered as the user types.
 */
import { useEffect, useMemo, useRef, useState } from 'react';
import { useDataProvider, useNotify } from 'react-admin';
import { Autocomplete, TextField } from '@mui/material';
import type { ListRow, Schema } from '../../data/apiTypes';
import type { AppDataProvider } from '../../data/dataProvider';
import { searchWithin } from './pickSearch';

/** One choice of a pick list: the record's id and its label (its name). */
export interface PickOption {
  id: string;
  label: string;
}

/** Where a pick list's options come from: a name search (10 at most) and a look-up of chosen ids. */
export interface PickSource {
  /** The plural entity for messages, e.g. 'email blasts'. */
  entity: string;
  search: (text: string) => Promise<PickOption[]>;
  /** Makes the search of one opening of the list (e.g. one that reads its rows once); `search` when absent. */
  opening?: () => (text: string) => Promise<PickOption[]>;
  byIds: (ids: string[]) => Promise<PickOption[]>;
}

/** The pick lists' page size (spec part 2 §2 Pick lists: pickers default to limit 10). */
export const PICK_LIMIT = 10;

/** How long after the last keystroke a pick list searches (ms). */
export const PICK_SEARCH_DEBOUNCE_MS = 300;

type PickKind = 'templates' | 'email-blasts' | 'campaigns' | 'workflows' | 'segments' | 'sender-personas';

/** A row of the lists picked from by name (templates, email blasts, workflows, segments, campaigns), as generated. */
type NamedRow = ListRow<'listTemplates' | 'listEmailBlasts' | 'listWorkflows' | 'listSegments'> | ListRow<'listCampaigns', 'campaigns'>;

/** personaOption labels a sender persona "First Last <email>", marking one whose address is not verified yet. */
export function personaOption(p: Schema<'senderpersonawrapper', 'SenderPersona'>): PickOption {
  const name = [p.first_name, p.last_name].filter(Boolean).join(' ');
  return { id: String(p.id), label: `${name ? `${name} <${p.email}>` : p.email}${p.verified_at === null ? ' (not verified)' : ''}` };
}

/** How many sender personas the persona pick list reads to search among (the gateway has no name search). */
export const PERSONA_SEARCH_LIMIT = 1000;

/**
 * usePickSource returns the PickSource of one kind: templates (listTemplates search_field=name), email blasts
 * (listEmailBlasts enabled_only=true, search_field=name; look-ups include disabled ones) or campaigns (listCampaigns
 * search_value) or workflows (listWorkflows search_field=name), segments (listSegments search_field=name), each 10 at
 * a time sorted by name; sender personas (listSenderPersonas has no search: up to PERSONA_SEARCH_LIMIT sorted by email,
 * read once per opening of the list and matched here on name and email, 10 shown).
 */
export function usePickSource(kind: PickKind): PickSource {
  const dataProvider = useDataProvider<AppDataProvider>();
  return useMemo(() => {
    const toOptions = (rows: NamedRow[] | undefined) => (rows ?? []).map((r) => ({ id: String(r.id), label: String(r.name) }));
    const sort = 'name ASC';
    switch (kind) {
      case 'templates':
        return {
          entity: 'templates',
          search: async (text) =>
            toOptions(
              (
                await dataProvider.callGateway('listTemplates', {
                  query: { search_field: text ? 'name' : undefined, search_value: text || undefined, limit: PICK_LIMIT, sort_columns: sort },
                })
              ).data,
            ),
          byIds: async (ids) => toOptions((await dataProvider.callGateway('listTemplates', { query: { ids: ids.join(','), limit: ids.length } })).data),
        };
      case 'email-blasts':
        return {
          entity: 'email blasts',
          search: async (text) =>
            toOptions(
              (
                await dataProvider.callGateway('listEmailBlasts', {
                  query: {
                    enabled_only: true,
                    search_field: text ? 'name' : undefined,
                    search_value: text || undefined,
                    limit: PICK_LIMIT,
                    sort_columns: sort,
                  },
                })
              ).data,
            ),
          byIds: async (ids) => toOptions((await dataProvider.callGateway('listEmailBlasts', { query: { ids: ids.join(','), limit: ids.length } })).data),
        };
      case 'workflows':
        return {
          entity: 'workflows',
          search: async (text) =>
            toOptions(
              (
                await dataProvider.callGateway('listWorkflows', {
                  query: { search_field: text ? 'name' : undefined, search_value: text || undefined, limit: PICK_LIMIT, sort_columns: sort },
                })
              ).data,
            ),
          byIds: async (ids) => toOptions((await dataProvider.callGateway('listWorkflows', { query: { ids: ids.join(','), limit: ids.length } })).data),
        };
      case 'segments':
        return {
          entity: 'segments',
          search: async (text) =>
            toOptions(
              (
                await dataProvider.callGateway('listSegments', {
                  query: {
                    search_field: text ? 'name' : undefined,
                    search_value: text || undefined,
                    limit: PICK_LIMIT,
                    sort_columns: sort,
                    with_counts: false,
                  },
                })
              ).data,
            ),
          byIds: async (ids) =>
            toOptions((await dataProvider.callGateway('listSegments', { query: { ids: ids.join(','), limit: ids.length, with_counts: false } })).data),
        };
      case 'sender-personas': {
        const opening = () =>
          searchWithin(
            async () => (await dataProvider.callGateway('listSenderPersonas', { query: { limit: PERSONA_SEARCH_LIMIT, sort_columns: 'email ASC' } })).data,
            personaOption,
            PICK_LIMIT,
          );
        return {
          entity: 'sender personas',
          search: (text) => opening()(text),
          opening,
          byIds: async (ids) =>
            (await dataProvider.callGateway('listSenderPersonas', { query: { ids: ids.join(','), limit: ids.length } })).data.map(personaOption),
        };
      }
      case 'campaigns':
        return {
          entity: 'campaigns',
          search: async (text) =>
            toOptions(
              (
                await dataProvider.callGateway('listCampaigns', {
                  query: { search_value: text || undefined, limit: PICK_LIMIT, sort_columns: sort },
                })
              ).campaigns,
            ),
          byIds: async (ids) => toOptions((await dataProvider.callGateway('listCampaigns', { query: { ids: ids.join(','), limit: ids.length } })).campaigns),
        };
    }
  }, [dataProvider, kind]);
}

/** The props of a pick list: its input, source, chosen ids and texts. */
export interface PickListProps {
  /** The input's id (its label is bound to it). */
  id: string;
  label: string;
  /** Where options come from; without one the pick list is disabled. */
  source?: PickSource;
  /** Several choices (a multi select) or one. */
  multiple?: boolean;
  /** The chosen ids. */
  value: string[];
  onChange: (ids: string[]) => void;
  disabled?: boolean;
  /** Text under the input (an error takes its place). */
  helperText?: string;
  error?: string;
  /** The text when a search finds nothing. */
  noOptionsText?: string;
  placeholder?: string;
}

/** PickList is a searchable single or multi select over a PickSource. */
export function PickList({ id, label, source, multiple = false, value, onChange, disabled, helperText, error, noOptionsText, placeholder }: PickListProps) {
  const notify = useNotify();
  const [input, setInput] = useState('');
  const [open, setOpen] = useState(false);
  const [options, setOptions] = useState<PickOption[]>([]);
  const [loading, setLoading] = useState(false);
  const [labels, setLabels] = useState<Record<string, string>>({});
  const requested = useRef(new Set<string>());

  // One search per opening of the list (a source may read its rows once per opening).
  const search = useMemo(() => (open && source ? (source.opening?.() ?? source.search) : undefined), [open, source]);

  // Search while the list is open: at once on opening, then PICK_SEARCH_DEBOUNCE_MS after the last keystroke.
  useEffect(() => {
    if (!search || !source) return;
    let live = true;
    const timer = setTimeout(
      () => {
        setLoading(true);
        search(input.trim())
          .then((found) => {
            if (!live) return;
            setOptions(found);
            setLabels((prev) => ({ ...prev, ...Object.fromEntries(found.map((o) => [o.id, o.label])) }));
          })
          .catch((e: Error) => live && notify(`Couldn't fetch ${source.entity}: ${e.message}`, { type: 'error' }))
          .finally(() => live && setLoading(false));
      },
      input ? PICK_SEARCH_DEBOUNCE_MS : 0,
    );
    return () => {
      live = false;
      clearTimeout(timer);
    };
  }, [search, input, source, notify]);

  // Name the chosen ids no search has shown yet (each id is looked up once).
  useEffect(() => {
    if (!source) return;
    const unknown = value.filter((v) => !(v in labels) && !requested.current.has(v));
    if (!unknown.length) return;
    unknown.forEach((v) => requested.current.add(v));
    source
      .byIds(unknown)
      .then((found) => setLabels((prev) => ({ ...prev, ...Object.fromEntries(found.map((o) => [o.id, o.label])) })))
      .catch((e: Error) => notify(`Couldn't fetch ${source.entity}: ${e.message}`, { type: 'error' }));
  }, [value, labels, source, notify]);

  // One value object per chosen ids and labels: Autocomplete resets its text whenever the value object changes.
  const valueKey = value.join(',');
  const chosen = useMemo(() => (valueKey ? valueKey.split(',') : []).map((v) => ({ id: v, label: labels[v] ?? v })), [valueKey, labels]);
  const common = {
    id,
    options,
    open,
    onOpen: () => setOpen(true),
    onClose: () => setOpen(false),
    loading,
    disabled: disabled || !source,
    filterOptions: (x: PickOption[]) => x,
    isOptionEqualToValue: (a: PickOption, b: PickOption) => a.id === b.id,
    getOptionLabel: (o: PickOption) => o.label,
    // The text is Autocomplete's own (it shows a single choice's label); only typed text is searched.
    onInputChange: (_: unknown, v: string, reason: string) => setInput(reason === 'input' ? v : ''),
    noOptionsText: noOptionsText ?? `No ${source?.entity ?? 'choices'} found`,
    renderInput: (params: object) => <TextField {...params} label={label} placeholder={placeholder} error={!!error} helperText={error ?? helperText} />,
  };
  if (multiple) {
    return <Autocomplete<PickOption, true> {...common} multiple filterSelectedOptions value={chosen} onChange={(_, v) => onChange(v.map((o) => o.id))} />;
  }
  return <Autocomplete<PickOption, false> {...common} value={chosen[0] ?? null} onChange={(_, v) => onChange(v ? [v.id] : [])} />;
}
