/** The known proxy images live in model/ (generation reads them too, for waypoints); analyze and cmd/ import them here. */
export {
  DEFAULT_CONTRIB_IMAGES,
  DEFAULT_META_PROTOCOL_IMAGES,
  imageRepository,
  isKnownImage,
} from '../model/proxy-images.ts';
