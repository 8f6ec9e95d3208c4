/**
 * Types for swagger-ui-react 5.35 (it ships none): the props SwaggerDoc.tsx passes. See the package's
 * index.mjs for the full list.
 */
declare module 'swagger-ui-react' {
  import type { ComponentType } from 'react';

  export interface SwaggerUIProps {
    url?: string;
    spec?: object | string;
    docExpansion?: 'list' | 'full' | 'none';
    defaultModelsExpandDepth?: number;
    defaultModelExpandDepth?: number;
    deepLinking?: boolean;
    displayOperationId?: boolean;
    tryItOutEnabled?: boolean;
    persistAuthorization?: boolean;
    queryConfigEnabled?: boolean;
    supportedSubmitMethods?: string[];
    onComplete?: (system: unknown) => void;
    /** swagger-ui plugins: functions returning { components, wrapComponents, statePlugins, … }. */
    plugins?: Array<() => object>;
  }

  const SwaggerUI: ComponentType<SwaggerUIProps>;
  export default SwaggerUI;
}
