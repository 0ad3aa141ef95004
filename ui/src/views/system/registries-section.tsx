import { useEffect, useState } from 'preact/hooks';
import { errorMessage } from '../../../../shared/error-message';
import { ErrorText } from '../../components/error-text';
import { type ListColumn, ListTable } from '../../components/list-table';
import { type Registry, systemApi } from './system-api';

/** A provider's configuration as served (secrets already masked by the hub), in one line. */
const settingsOf = (registry: Registry) =>
  Object.entries(registry.configuration)
    .map(([key, value]) => `${key}: ${typeof value === 'string' ? value : JSON.stringify(value)}`)
    .join(', ') || '—';

const REGISTRY_COLUMNS: ListColumn<Registry>[] = [
  { label: 'Name', cell: (registry) => registry.name },
  { label: 'Type', cell: (registry) => registry.type },
  { label: 'Configured', cell: (registry) => (registry.configured ? 'yes' : 'built in') },
  { label: 'Settings', class: 'mono break', cell: settingsOf },
];

/** The registry providers the hub loaded: configured ones first, then the public ones it knows. */
export function RegistriesSection() {
  const [registries, setRegistries] = useState<Registry[] | undefined>();
  const [error, setError] = useState<string | undefined>();
  useEffect(() => {
    systemApi.registries().then(
      (page) => setRegistries([...page.data].sort((a, b) => Number(b.configured) - Number(a.configured))),
      (failure: unknown) => setError(errorMessage(failure)),
    );
  }, []);
  return (
    <section class="card" aria-labelledby="registries">
      <h2 id="registries">Registries</h2>
      {registries && (
        <ListTable
          columns={REGISTRY_COLUMNS}
          rows={registries}
          rowKey={(registry) => registry.id}
          rowAttribute="data-registry"
          labelledBy="registries"
        />
      )}
      <ErrorText message={error} />
    </section>
  );
}
