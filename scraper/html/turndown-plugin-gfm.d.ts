// turndown-plugin-gfm ships no types; it is a set of turndown plugins.
declare module 'turndown-plugin-gfm' {
  import type TurndownService from 'turndown';

  /** All of the plugins below. */
  export const gfm: TurndownService.Plugin;
  export const highlightedCodeBlock: TurndownService.Plugin;
  export const strikethrough: TurndownService.Plugin;
  export const tables: TurndownService.Plugin;
  export const taskListItems: TurndownService.Plugin;
}
