/**
 * @module The wire shape of GET /openapi.json: the top level of an OpenAPI 3.1 document. The
 * members inside (paths, components) are checked by the OpenAPI tests, not restated here.
 */
import { z } from 'zod'

export const openApiDocumentSchema = z.looseObject({
  openapi: z.literal('3.1.0'),
  info: z.looseObject({ title: z.string(), version: z.string() }),
  servers: z.array(z.object({ url: z.string() })).optional(),
  paths: z.record(z.string(), z.record(z.string(), z.unknown())),
  components: z.looseObject({}),
}).describe('An OpenAPI 3.1 document describing every endpoint of this server.')
