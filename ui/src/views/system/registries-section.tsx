import { useEffect, useState } from 'preact/hooks';
import { errorMessage } from '../../../../shared/error-message';
import { ErrorText } from '../../components/error-text';
import { type Registry, systemApi } from './system-api';

/** A provider's configuration as served (secrets already masked by the hub), in one line. */
const settingsOf = (registry: Registry) =>
  Object.entries(registry.configuration)
    .map(([key, value]) => `${key}: ${typeof value === 'string' ? value : JSON.stringify(value)}`)
    .join(', ') || '—';

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
        <table class="list" aria-labelledby="registries">
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Type</th>
              <th scope="col">Configured</th>
              <th scope="col">Settings</th>
            </tr>
          </thead>
          <tbody>
            {registries.map((registry) => (
              <tr key={registry.id} data-registry={registry.id}>
                <td data-label="Name">{registry.name}</td>
                <td data-label="Type">{registry.type}</td>
                <td data-label="Configured">{registry.configured ? 'yes' : 'built in'}</td>
                <td data-label="Settings" class="mono break">
                  {settingsOf(registry)}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <ErrorText message={error} />
    </section>
  );
}
