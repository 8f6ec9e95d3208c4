/**
 * One report read for the Insights pages (spec part 1 §7 reporting calls, §8 Reports, §9 retries): the operation is
 * called through the dataProvider with the report retries (6/800 ms); a failure shows the report's toast with the
 * error, records the error text for that report and clears its loading flag.
 */
import { useEffect, useRef, useState } from 'react';
import { useDataProvider, useNotify } from 'react-admin';
import type { CallArgs, ListRow, OperationId, OperationQuery } from '../data/apiTypes';
import type { AppDataProvider } from '../data/dataProvider';
import { RETRY } from '../retry';
import { peopleView } from '../../domain/reports';
import { useIncludeMachineParam } from './urlParams';

/** The state of one report: loading, its rows, or the error text. */
export interface ReportState<T> {
  loading: boolean;
  rows: T[];
  error?: string;
}

/**
 * useLoaded runs `load` (through the dataProvider) whenever `rowsKey` changes and answers its rows — as people made
 * them (peopleView, src/domain/reports.ts) unless the URL says machine=include; on failure it toasts
 * `{failure}: {error}`, records the error text and clears the loading flag (spec part 1 §8). `load` is read afresh for
 * each key, so it may close over the values the key names.
 */
export function useLoaded<T>(rowsKey: string, load: (dataProvider: AppDataProvider) => Promise<T[]>, failure: string): ReportState<T> {
  const dataProvider = useDataProvider<AppDataProvider>();
  const notify = useNotify();
  const [includeMachine] = useIncludeMachineParam();
  const key = `${rowsKey}\u0000${includeMachine ? 'all' : 'people'}`;
  const loadRef = useRef(load);
  loadRef.current = load;
  const [state, setState] = useState<ReportState<T> & { key?: string }>({ loading: true, rows: [] });

  useEffect(() => {
    let live = true;
    setState({ loading: true, rows: [], key });
    loadRef
      .current(dataProvider)
      .then((rows) => live && setState({ loading: false, rows: includeMachine ? rows : rows.map(peopleView), key }))
      .catch((error: Error) => {
        if (!live) return;
        notify(`${failure}: ${error.message}`, { type: 'error' });
        setState({ loading: false, rows: [], error: error.message, key });
      });
    return () => {
      live = false;
    };
  }, [dataProvider, notify, key, failure, includeMachine]);

  // Until the effect has run for a new key, the previous rows are not this key's: show loading.
  return state.key === key ? state : { loading: true, rows: [] };
}

/**
 * useReport reads report `operationId` with `query` (the operation's query parameters; campaign_id undefined means
 * every campaign) and answers its `data` rows, typed from the operation's answer in generated/; on failure it toasts
 * `{failure}: {error}` (e.g. "Couldn't fetch quick stats / report data: …"). It reads again whenever the query changes.
 */
export function useReport<Id extends OperationId>(operationId: Id, query: OperationQuery<Id>, failure: string): ReportState<ListRow<Id>> {
  const key = JSON.stringify([operationId, query]);
  return useLoaded<ListRow<Id>>(
    key,
    async (dataProvider) => {
      // Id is generic here, so its params and answer are not resolved yet: both are the operation's (see the signature).
      const answer = await dataProvider.callGateway(operationId, ...([{ query }, RETRY.reports] as unknown as CallArgs<Id>));
      return (answer as { data?: Array<ListRow<Id>> }).data ?? [];
    },
    failure,
  );
}
