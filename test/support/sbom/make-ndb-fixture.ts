/**
 * Re-makes test/support/fixtures/rpm/ndb/ (an NDB `Packages.db` written by rpm, and its `rpm -qa`)
 * with an rpm built with NDB support, which the test bed's Debian rpm lacks:
 *
 *   RPM_NDB=/path/to/rpm npx tsx test/support/sbom/make-ndb-fixture.ts
 *
 * test/support/fixtures/rpm/README.md says how that rpm was built here.
 */
import { NDB_FIXTURE_DIR, writeNdbFixture } from './rpm-fixture';

const rpm = process.env.RPM_NDB;
if (!rpm) {
  console.error('RPM_NDB: set it to an rpm binary built with --enable-ndb');
  process.exit(2);
}
writeNdbFixture(rpm, NDB_FIXTURE_DIR);
console.log(`wrote ${NDB_FIXTURE_DIR}`);
