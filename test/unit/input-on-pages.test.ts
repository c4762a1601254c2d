// A job over an earlier job's pages (retry, re-extract) is a pure function of the earlier job's stored request.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { inputOnPages, requestOf } from '../../shared/job-create.js';

const crawlInput = {
  jobId: 'job_old',
  tenantId: 't1',
  firstSeq: 1,
  url: 'https://shop.example/',
  schema: { name: 'x' },
  options: {
    max_pages: 500,
    max_depth: 3,
    follow_selector: 'a.item',
    follow_pattern: '/p/',
    next_selector: 'a.next',
  },
  state: { nextSeq: 40 },
};
const pages = [
  { id: 'p1', url: 'https://shop.example/p/1', depth: 1, parent_url: 'https://shop.example/' },
  { id: 'p2', url: 'https://shop.example/p/2', depth: 2, parent_url: 'https://shop.example/p/1' },
];

test('a crawl over earlier pages: those pages as seeds, no link followed, its limit their number', () => {
  const request = requestOf(crawlInput);
  assert.equal('state' in request, false, 'a run state is never part of a stored request');
  const input = inputOnPages(request, { jobId: 'job_new', tenantId: 't1', type: 'crawl' }, pages, (id) =>
    id === 'p2' ? { stored: { pageId: id } } : {},
  );
  assert.equal(input.jobId, 'job_new');
  assert.equal(input.firstSeq, 1);
  assert.deepEqual(input.seeds, [
    { url: 'https://shop.example/p/1', depth: 1, parentUrl: 'https://shop.example/' },
    {
      url: 'https://shop.example/p/2',
      depth: 2,
      parentUrl: 'https://shop.example/p/1',
      stored: { pageId: 'p2' },
    },
  ]);
  assert.deepEqual(input.options, {
    max_pages: 2,
    max_depth: 3,
    follow_selector: undefined,
    follow_pattern: undefined,
    next_selector: undefined,
  });
  assert.equal(input.url, crawlInput.url);
  // The stored request is not changed: the same call makes the same input.
  assert.deepEqual(
    inputOnPages(request, { jobId: 'job_new', tenantId: 't1', type: 'crawl' }, pages, () => ({})).options,
    input.options,
  );
  assert.equal((request.options as { max_pages: number }).max_pages, 500);
});

test('an extract over its earlier page: the request with the page-store reference, no seeds', () => {
  const request = requestOf({
    jobId: 'job_old',
    tenantId: 't1',
    firstSeq: 1,
    url: 'https://a.example/',
    schema: {},
  });
  const input = inputOnPages(
    request,
    { jobId: 'job_new', tenantId: 't1', type: 'extract' },
    pages.slice(0, 1),
    (id) => ({
      stored: { pageId: id },
    }),
  );
  assert.deepEqual(input, {
    url: 'https://a.example/',
    schema: {},
    jobId: 'job_new',
    tenantId: 't1',
    firstSeq: 1,
    stored: { pageId: 'p1' },
  });
});
