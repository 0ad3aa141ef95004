import { GroupPolicies } from './policies/group-policies';
import { LabelOverrides } from './policies/label-overrides';
import './policies/policies.css';

/** Group policies and label overrides by selector: the policies set for many containers at once. */
export function Policies() {
  return (
    <main id="main" tabIndex={-1} class="policies">
      <h1>Policies</h1>
      <GroupPolicies />
      <LabelOverrides />
    </main>
  );
}
