// Which listen addresses are reachable from this machine only: a server that holds what only an operator may
// read (metrics without a token) serves it only there.

/** HOST values that listen on loopback only (0.0.0.0, :: and any other address are reachable from outside). */
export const isLoopbackHost = (host: string) =>
  ['localhost', '::1', '[::1]'].includes(host.toLowerCase()) || /^127(\.\d{1,3}){3}$/.test(host);
