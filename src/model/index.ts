export * from './constants.js';
export * from './duration.js';
export * from './request.js';
export * from './config.js';
export * from './errors.js';
export * from './issues.js';
export * from './results.js';
export * from './kube.js';
