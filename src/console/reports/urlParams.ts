/**
 * The report pages' URL state (spec part 1 §2 Authenticated routes, Insights and reports): campaign_id (the campaign
 * filter; blank or absent means every campaign) and deselected_columns1 / deselected_columns2 (the columns a chart
 * hides: absent means the page's defaults, 'none' means nothing hidden). Changes replace the current history entry,
 * so the URL always says what is shown and a reload shows the same.
 */
import { useCallback } from 'react';
import { useSearchParams } from 'react-router-dom';
import { formatDeselected, parseCampaignId, parseDeselected, type SeriesColumn } from '../../domain/reports';

/** The URL parameter of the 30-day (or daily) chart's and of the 24-hour chart's deselected columns. */
export type DeselectedParam = 'deselected_columns1' | 'deselected_columns2';

/**
 * useCampaignParam returns the campaign_id of the URL (undefined for every campaign, including 'all' and the
 * placeholders the reporting gateway reads as every campaign; a malformed value is passed on as it is, so the reports
 * show the gateway's error instead of silently reporting every campaign) and a setter; undefined removes the parameter.
 */
export function useCampaignParam(): [string | undefined, (id: string | undefined) => void] {
  const [params, setParams] = useSearchParams();
  const raw = params.get('campaign_id') ?? '';
  const scope = parseCampaignId(raw);
  const campaignId = 'error' in scope ? raw : scope.all ? undefined : scope.id;
  const set = useCallback(
    (id: string | undefined) => {
      setParams(
        (prev) => {
          const next = new URLSearchParams(prev);
          if (id) next.set('campaign_id', id);
          else next.delete('campaign_id');
          return next;
        },
        { replace: true },
      );
    },
    [setParams],
  );
  return [campaignId, set];
}

/**
 * useDeselectedParam returns the columns the URL's `param` deselects (`defaults` when absent) and a setter that writes
 * the set back ('none' when empty), keeping every other parameter.
 */
export function useDeselectedParam(param: DeselectedParam, defaults?: SeriesColumn[]): [SeriesColumn[], (columns: SeriesColumn[]) => void] {
  const [params, setParams] = useSearchParams();
  const deselected = parseDeselected(params.get(param), defaults);
  const set = useCallback(
    (columns: SeriesColumn[]) => {
      setParams(
        (prev) => {
          const next = new URLSearchParams(prev);
          next.set(param, formatDeselected(columns));
          return next;
        },
        { replace: true },
      );
    },
    [param, setParams],
  );
  return [deselected, set];
}

/**
 * useIncludeMachineParam returns whether the report pages count machine opens and bot clicks too (the URL's
 * machine=include; absent: people only) and a setter that keeps every other parameter.
 */
export function useIncludeMachineParam(): [boolean, (include: boolean) => void] {
  const [params, setParams] = useSearchParams();
  const include = params.get('machine') === 'include';
  const set = useCallback(
    (on: boolean) => {
      setParams(
        (prev) => {
          const next = new URLSearchParams(prev);
          if (on) next.set('machine', 'include');
          else next.delete('machine');
          return next;
        },
        { replace: true },
      );
    },
    [setParams],
  );
  return [include, set];
}
