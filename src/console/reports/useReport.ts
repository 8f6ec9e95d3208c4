/**
 * One report read for the Insights pages (spec part 1 §7 reporting calls, §8 Reports, §9 retries): the operation is
 * called through the dataProvider with the report retries (6/800 ms); a failure shows the report's toast with the
 * error, records the error text for that report and clears its loading flag.
 */
import { useEffect, useState } from 'react';
import { useDataProvider, useNotify } from 'react-admin';
import type { OperationId } from '../../../generated/operations.gen';
import type { AppDataProvider } from '../data/dataProvider';
import { RETRY } from '../retry';

/** The state of one report: loading, its rows, or the error text. */
export interface ReportState<T> {
  loading: boolean;
  rows: T[];
  error?: string;
}

type Query = Record<string, string | number | boolean | undefined>;

/**
 * useReport reads report `operationId` with `query` (campaign_id undefined means every campaign) and answers its
 * `data` rows; on failure it toasts `{failure}: {error}` (e.g. "Couldn't fetch quick stats / report data: …").
 * It reads again whenever the query changes.
 */
export function useReport<T>(operationId: OperationId, query: Query, failure: string): ReportState<T> {
  const dataProvider = useDataProvider<AppDataProvider>();
  const notify = useNotify();
  const key = JSON.stringify(query);
  const [state, setState] = useState<ReportState<T> & { key?: string }>({ loading: true, rows: [] });

  useEffect(() => {
    let live = true;
    setState({ loading: true, rows: [], key });
    dataProvider
      .callGateway<{ data?: T[] }>(operationId, { query: JSON.parse(key) as Query }, RETRY.reports)
      .then((body) => live && setState({ loading: false, rows: body.data ?? [], key }))
      .catch((error: Error) => {
        if (!live) return;
        notify(`${failure}: ${error.message}`, { type: 'error' });
        setState({ loading: false, rows: [], error: error.message, key });
      });
    return () => {
      live = false;
    };
  }, [dataProvider, notify, operationId, key, failure]);

  // Until the effect has run for a new query, the previous rows are not this query's: show loading.
  return state.key === key ? state : { loading: true, rows: [] };
}
