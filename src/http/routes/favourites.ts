// A person's favourite pages (docs/api.md, Principals and keys).
import * as v from 'valibot';
import { addFavourite, listFavourites, removeFavourite } from '../../domain/favourites.ts';
import { endpoint } from '../endpoint.ts';
import { json, noContentAfter } from '../respond.ts';
import { Slug } from '../schemas.ts';

const FAVOURITE_PATH = '/me/favourites/:space/**:path';
const FavouriteParams = v.object({ space: Slug, path: v.pipe(v.string(), v.minLength(1)) });
const Favourite = v.strictObject({ space: v.string(), path: v.string(), title: v.string() });

export const favouriteEndpoints = [
  endpoint({
    method: 'GET',
    path: '/me/favourites',
    tag: 'principals',
    auth: 'key',
    summary: 'Your favourite pages that you may read, the newest first',
    responses: [{ status: 200, schema: v.array(Favourite) }],
    handler: ({ svc, caller }) => json(listFavourites(svc, caller)),
  }),
  endpoint({
    method: 'PUT',
    path: FAVOURITE_PATH,
    tag: 'principals',
    auth: 'key',
    params: FavouriteParams,
    summary: 'Mark a page as a favourite',
    description:
      'The page must be one you may read (404 otherwise). Repeating it changes nothing. A favourite follows its page through moves and hides while you may not read it. At most 1000 per principal (409).',
    responses: [{ status: 204 }],
    handler: ({ svc, caller, params }) => noContentAfter(svc, () => addFavourite(svc, caller, params.space, params.path)),
  }),
  endpoint({
    method: 'DELETE',
    path: FAVOURITE_PATH,
    tag: 'principals',
    auth: 'key',
    params: FavouriteParams,
    summary: 'Unmark a favourite page',
    responses: [{ status: 204 }],
    handler: ({ svc, caller, params }) => noContentAfter(svc, () => removeFavourite(svc, caller, params.space, params.path)),
  }),
];
