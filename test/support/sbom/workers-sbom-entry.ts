/**
 * A Worker that runs the SBOM generator on the `docker save` archive POSTed to it (the request
 * body, a Web stream) and answers the ImageSbom, or the error the scan failed with: proof that the
 * generator, fflate included, runs in workerd as it is, on the runtime's own streams.
 */
import { generateSbom } from '../../../hub/src/security/sbom/generate-sbom';

export default {
  async fetch(request: Request): Promise<Response> {
    if (!request.body) return new Response('an archive is expected', { status: 400 });
    try {
      const sbom = await generateSbom(request.body, {
        imageId: request.headers.get('x-image-id') ?? '',
        imageRef: 'workerd:1',
      });
      return Response.json(sbom);
    } catch (error) {
      return Response.json({ error: (error as Error).message, name: (error as Error).name }, { status: 500 });
    }
  },
};
