/**
 * plainPage lazily loads a public page made of plain elements styled by site.css (export `name` of the module `load`
 * imports). Unlike publicRoutes' page(), it brings no MUI theme, so such a page loads as little as the home page.
 */
import { lazy, type ComponentType } from 'react';

export function plainPage<K extends string>(load: () => Promise<Record<K, ComponentType>>, name: K) {
  return lazy(async () => ({ default: (await load())[name] }));
}
