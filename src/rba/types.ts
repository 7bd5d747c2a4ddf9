import type { SourceFormat } from '../domain/source-format.js';
import type { PublishedCode } from '../domain/currencies.js';

export interface RbaDay {
  /** 'YYYY-MM-DD' */
  date: string;
  /**
   * The exact decimal text as published ('0.6828', '61.40', '10635'); a code is
   * absent when the RBA published no value for it that day.
   */
  rates: Partial<Record<PublishedCode, string>>;
}

export interface RbaTable {
  format: SourceFormat;
  /** 'YYYY-MM-DD' from the 'Publication date' row or the RSS channel's dc:date; null if absent */
  publicationDate: string | null;
  /** ascending by date, unique dates */
  days: RbaDay[];
}
