import { GraphQLError, Kind } from 'graphql';
import { DateTimeISOResolver, SafeIntResolver, UUIDResolver } from 'graphql-scalars';
import { isValidIsoDate } from '../domain/calendar.js';
import { isPlainDecimal, normalizeDecimal } from '../domain/decimal.js';
import { emailAddressFault, emailAddressOf } from '../domain/email-address.js';
import { textFault } from '../domain/text.js';
import { builder } from './builder.js';

builder.addScalarType('DateTime', DateTimeISOResolver);
builder.addScalarType('SafeInt', SafeIntResolver);
builder.addScalarType('UUID', UUIDResolver);

function emailAddress(value: unknown): string {
  if (typeof value !== 'string') throw new GraphQLError('An e-mail address must be a string');
  const fault = emailAddressFault(value);
  if (fault !== null) throw new GraphQLError(`${fault} (given ${JSON.stringify(value.slice(0, 80))})`);
  return emailAddressOf(value);
}

// The dashboard's sign-in rule (src/domain/email-address.ts), not graphql-scalars' EmailAddress,
// which takes addresses such as o'brien&co@example.com that the sign-in form refuses: an account
// made by the operator must be able to sign in.
builder.scalarType('EmailAddress', {
  description: 'An e-mail address an account can sign in with, such as name@example.com; read without case and without blanks around it.',
  serialize: (value) => value,
  parseValue: emailAddress,
  parseLiteral: (ast) => emailAddress(ast.kind === Kind.STRING ? ast.value : undefined),
});

function localDate(value: unknown): string {
  if (typeof value !== 'string' || !isValidIsoDate(value)) throw new GraphQLError(`Value is not a valid LocalDate: ${String(value)}`);
  return value;
}

// The calendar's own check (src/domain/calendar.ts) rather than graphql-scalars' LocalDate, which
// builds a Date and its ISO string for every date a request sends or receives.
builder.scalarType('LocalDate', {
  description: 'A local date string (i.e., with no associated timezone) in `YYYY-MM-DD` format, e.g. `2020-01-01`.',
  serialize: localDate,
  parseValue: localDate,
  parseLiteral: (ast) => localDate(ast.kind === Kind.STRING ? ast.value : undefined),
});

function parseDecimal(value: unknown): string {
  if (typeof value !== 'string' || !isPlainDecimal(value)) {
    throw new GraphQLError('Decimal must be a string of digits with an optional fraction, e.g. "1234.5678"');
  }
  return value;
}

builder.scalarType('Decimal', {
  description: 'An exact non-negative decimal number, as a string ("0.6828", "10635"). Never a binary float: rates and amounts stay exact.',
  serialize: (value) => normalizeDecimal(value),
  parseValue: parseDecimal,
  parseLiteral: (ast) => parseDecimal(ast.kind === Kind.STRING ? ast.value : undefined),
});

builder.scalarType('SignedDecimal', {
  description: 'An exact decimal number that may be negative, as a string ("-0.0012"): a change between two rates.',
  serialize: (value) => normalizeDecimal(value),
});

function parseText(value: unknown): string {
  if (typeof value !== 'string') throw new GraphQLError('Text must be a string');
  const fault = textFault(value);
  if (fault !== null) throw new GraphQLError(`Text ${fault}: only text that can be stored exactly is accepted`);
  return value;
}

// Every text argument is Text, not String: the rule is checked while variables and literals are
// coerced, before any resolver runs, for the REST facade, the internal endpoint and the CLI alike.
builder.scalarType('Text', {
  description: 'A string of Unicode text that can be stored exactly: no NUL (U+0000) and no lone surrogate.',
  serialize: (value) => value,
  parseValue: parseText,
  parseLiteral: (ast) => parseText(ast.kind === Kind.STRING ? ast.value : undefined),
});

builder.scalarType('RateMap', {
  description: 'Rates of one day: a map from currency code to the units of that currency that 1 AUD buys, each an exact decimal string.',
  serialize: (value) => value,
});

builder.scalarType('RateSeries', {
  description: 'Rates of a range of days: a map from date (YYYY-MM-DD) to a RateMap, ascending.',
  serialize: (value) => value,
});
