import pg from 'pg';

const INT8_OID = 20;

/**
 * How both backends read column values: `pg`'s text parsers, except BIGINT (millisecond timestamps, far below
 * 2^53), read as a number rather than a string.
 */
export const columnTypes = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
    oid === INT8_OID
      ? (value: string) => Number(value)
      : pg.types.getTypeParser(oid, format)) as typeof pg.types.getTypeParser,
};
