/**
 * expectedTemplate: which of an A/B blast's weighted templates a contact gets, computed independently of the product
 * (the rule of src/server/core/blasts/sql/pick_template.sql: the last 32 bits of the contact id modulo the total
 * weight, then the template whose running-total range holds it). For browser tests, which cannot ask the database.
 */
export function expectedTemplate(contactId: string, weights: Array<{ template_id: string; weight: number }>): string {
  const live = weights.filter((w) => w.weight > 0);
  const total = live.reduce((s, w) => s + w.weight, 0);
  let point = parseInt(contactId.slice(-8), 16) % total;
  for (const w of live) {
    if (point < w.weight) return w.template_id;
    point -= w.weight;
  }
  throw new Error('unreachable: the point is below the total');
}
