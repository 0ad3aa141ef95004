// esbuild bundles the stylesheet imported by main.tsx into app-<hash>.css.
declare module '*.css';
