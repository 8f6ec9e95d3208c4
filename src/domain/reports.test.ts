import { describe, expect, it } from 'vitest';
import {
  ALL_SERIES_COLUMNS,
  COLUMN_LABELS,
  ISSUE_COLUMNS,
  QUICK_STAT_CARDS,
  REPORT_LIMITS,
  chartName,
  formatDeselected,
  formatRate,
  groupByDevice,
  isIntegerTick,
  labelEvery,
  parseCampaignId,
  parseDeselected,
  quickStatRates,
  rate,
  toggleColumn,
} from './reports.ts';
import { peopleView, readableSubject } from './reports.ts';
import { deviceOf } from './devices.ts';

const IPHONE = 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1';
const IPAD = 'Mozilla/5.0 (iPad; CPU OS 16_6 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/16.6 Mobile/15E148 Safari/604.1';
const DESKTOP = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36';

describe('report columns (spec part 1 §2, §9)', () => {
  it('lists the default report columns in the spec order, with the four issue columns and labels', () => {
    expect(ALL_SERIES_COLUMNS).toEqual(['sends', 'unsuccessful_sends', 'unsubscribes', 'opens', 'clicks', 'complaints', 'bounces']);
    expect([...ISSUE_COLUMNS].sort()).toEqual(['bounces', 'complaints', 'unsubscribes', 'unsuccessful_sends']);
    expect(COLUMN_LABELS.unsuccessful_sends).toBe('Failures');
  });

  it('reads deselected_columns: absent means the defaults, none means nothing, unknown names are dropped', () => {
    expect(parseDeselected(null)).toEqual(ISSUE_COLUMNS);
    expect(parseDeselected(undefined, [])).toEqual([]);
    expect(parseDeselected('none')).toEqual([]);
    expect(parseDeselected('opens, bounces,nonsense,opens')).toEqual(['opens', 'bounces']);
  });

  it('writes a deselected set in column order, none when empty, and round-trips', () => {
    expect(formatDeselected(['bounces', 'sends'])).toBe('sends,bounces');
    expect(formatDeselected([])).toBe('none');
    expect(parseDeselected(formatDeselected(ISSUE_COLUMNS))).toEqual(ALL_SERIES_COLUMNS.filter((c) => ISSUE_COLUMNS.includes(c)));
  });

  it('toggles one column between shown and deselected', () => {
    expect(toggleColumn(['bounces'], 'bounces')).toEqual([]);
    expect(toggleColumn(['bounces'], 'opens')).toEqual(['bounces', 'opens']);
  });

  it('reads campaign_id: blank, all and placeholders are every campaign; a UUID one; anything else an error', () => {
    expect(parseCampaignId('')).toEqual({ all: true });
    expect(parseCampaignId('all')).toEqual({ all: true });
    expect(parseCampaignId('{campaign_id}')).toEqual({ all: true });
    expect(parseCampaignId('3F2504E0-4F89-41D3-9A0C-0305E82C3301')).toEqual({ all: false, id: '3f2504e0-4f89-41d3-9a0c-0305e82c3301' });
    expect(parseCampaignId('drop table')).toHaveProperty('error');
  });
});

describe('quick stats and rates (spec part 1 §2, §9 Rates)', () => {
  it('orders the cards Sends, Opens, Clicks, Unsubscribes, Complaints, Bounces', () => {
    expect(QUICK_STAT_CARDS.map((c) => c.label)).toEqual(['Sends', 'Opens', 'Clicks', 'Unsubscribes', 'Complaints', 'Bounces']);
  });

  it('divides unique events by unique sends, and shows N/A for a zero divisor', () => {
    expect(rate(1, 4)).toBe(0.25);
    expect(rate(3, 0)).toBeNull();
    expect(formatRate(0.5)).toBe('50.0%');
    expect(formatRate(1 / 3)).toBe('33.3%');
    expect(formatRate(null)).toBe('N/A');
  });

  it('computes each card rate per unique send, click per open and open per click', () => {
    const rates = quickStatRates([
      { name: 'email_send_result_success', num: 2, num_unique: 2 },
      { name: 'ses_event_open', num: 2, num_unique: 1 },
      { name: 'ses_event_click', num: 3, num_unique: 1 },
    ]);
    expect(rates.perSend).toEqual({ Opens: 0.5, Clicks: 0.5, Unsubscribes: 0, Complaints: 0, Bounces: 0 });
    expect(rates.clickPerOpen).toBe(1);
    expect(rates.openPerClick).toBe(1);
  });

  it('gives N/A rates when nothing was sent, opened or clicked', () => {
    const rates = quickStatRates([]);
    expect(Object.values(rates.perSend).every((r) => r === null)).toBe(true);
    expect(rates.clickPerOpen).toBeNull();
    expect(rates.openPerClick).toBeNull();
  });
});

describe('devices and chart rules (spec part 1 §2 Chart details, §9)', () => {
  it('reads device groups from user agents', () => {
    expect(deviceOf(IPHONE)).toBe('Mobile');
    expect(deviceOf(IPAD)).toBe('Tablet');
    expect(deviceOf(DESKTOP)).toBe('Desktop / Other');
    expect(deviceOf('')).toBe('Desktop / Other');
  });

  it('sums by-user-agent rows into the three device groups, zeros included', () => {
    const grouped = groupByDevice(
      [
        { user_agent: IPHONE, num_opens: 2, num_clicks: 1 },
        { user_agent: DESKTOP, num_opens: 1, num_clicks: 0 },
        {
          user_agent: 'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0 Mobile Safari/537.36',
          num_opens: 3,
          num_clicks: 2,
        },
        { user_agent: null, num_opens: 1, num_clicks: 1 },
      ],
      deviceOf,
    );
    expect(grouped).toEqual([
      { device: 'Desktop / Other', num_opens: 2, num_clicks: 1 },
      { device: 'Tablet', num_opens: 0, num_clicks: 0 },
      { device: 'Mobile', num_opens: 5, num_clicks: 3 },
    ]);
  });

  it('cuts chart names at 20 characters, shows every 3rd/4th/5th label and only integer ticks', () => {
    expect(chartName('A short name')).toBe('A short name');
    expect(chartName('x'.repeat(20))).toBe('x'.repeat(20));
    expect(chartName('Winter sale newsletter 2026')).toBe('Winter sale newslett…');
    expect([labelEvery('md'), labelEvery('sm'), labelEvery('xs')]).toEqual([3, 4, 5]);
    expect(isIntegerTick(2)).toBe(true);
    expect(isIntegerTick(2.5)).toBe(false);
  });

  it('has the report limits of part 1 §9', () => {
    expect(REPORT_LIMITS).toMatchObject({ mostOpenedEmails: 10, recentlyOpenedEmails: 10, recentlyClickedLinks: 5, bySource: 10_000 });
  });
});

describe('peopleView', () => {
  it('puts the people’s count in place of each total that has one, and leaves other fields and rows alone', () => {
    const row = { name: 'ses_event_open', num: 9, num_unique: 5, num_human: 4, num_unique_human: 3 };
    expect(peopleView(row)).toEqual({ ...row, num: 4, num_unique: 3 });
    expect(row.num).toBe(9); // not changed
    expect(peopleView({ sends: 10, opens: 7, clicks: 2, human_opens: 3, human_clicks: 1 })).toMatchObject({ sends: 10, opens: 3, clicks: 1 });
    expect(peopleView({ num_opens: 4, num_human_opens: 1, num_clicks: 2 })).toEqual({ num_opens: 1, num_human_opens: 1, num_clicks: 2 });
    expect(peopleView({ link_url: 'x', num_clicks: 3, num_unique_clicks: 2, num_human_clicks: 0, num_unique_human_clicks: 0 })).toMatchObject({
      num_clicks: 0,
      num_unique_clicks: 0,
    });
  });
});

describe('readableSubject', () => {
  it('shows each template variable as what varies, in words', () => {
    expect(readableSubject('{{user.first_name}}, your week at {{ sender_persona.json.company }}')).toBe('[first name], your week at [company]');
    expect(readableSubject('No variables')).toBe('No variables');
  });
});
